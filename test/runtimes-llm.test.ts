/**
 * The LLM runtime against a scripted OpenAI-compatible server speaking real streamed
 * chat.completion.chunk SSE over HTTP: a conversation with a tool call, every tool,
 * provider errors, the tool-round bound, bad arguments and abort.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import { OrgError } from '../src/core/errors.js';
import { fakeTools, recordingEmit, sampleSkill, sampleTurn, type FakeTools } from './helpers/runtime-contract.js';
import { createLlmRuntime, type LlmRuntimeOptions } from '../src/core/runtimes/llm.js';
import type { Turn } from '../src/core/runtimes/types.js';
import { startScriptedLlm, type Script, type ScriptedLlm } from './helpers/scripted-llm.js';

const API_KEY = 'sk-test-0123456789abcdef';
let llm: ScriptedLlm | undefined;

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

interface TurnResult {
  events: EventInput[];
  tools: FakeTools;
  llm: ScriptedLlm;
}

/** Starts a server with `script` and runs one turn against it. */
async function converse(script: Script, turn: Partial<Turn> = {}, options: Partial<LlmRuntimeOptions> = {}): Promise<TurnResult> {
  llm = await startScriptedLlm(script);
  const recorder = recordingEmit();
  const tools = fakeTools();
  const runtime = createLlmRuntime({ url: llm.url, model: 'test-model', apiKey: API_KEY, timeoutMs: 2000, ...options });
  await runtime.run(sampleTurn(turn), recorder.emit, tools, new AbortController().signal);
  return { events: recorder.events, tools, llm };
}

const types = (events: EventInput[]) => events.map((event) => event.type);

describe('llm runtime', () => {
  it('runs a conversation with a tool call: tool_call, tool_result, text, complete', async () => {
    const { events, llm } = await converse(
      [
        { toolCalls: [{ id: 'call_abc', name: 'search_skills', arguments: ['{"que', 'ry": "weekly', ' report", "limit": 3}'] }] },
        { text: ['The weekly ', 'report skill ', 'covers it.'] },
      ],
      { message: 'How do I write the weekly report?', skills: [sampleSkill()] },
    );
    expect(types(events)).toEqual(['tool_call', 'tool_result', 'text', 'text', 'text', 'complete']);
    expect(events[0]).toEqual({ type: 'tool_call', content: { tool: 'search_skills', args: { query: 'weekly report', limit: 3 } } });
    expect(events[1]).toEqual({
      type: 'tool_result',
      content: { tool: 'search_skills', result: { matches: [{ slug: 'weekly-report', score: 0.9, reason: 'matched "weekly report"' }] } },
    });
    expect(events.at(-1)).toEqual({ type: 'complete', content: { summary: 'The weekly report skill covers it.', artifacts: [] } });

    expect(llm.requests).toHaveLength(2);
    const [first, second] = llm.requests;
    expect(first?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(first?.headers.accept).toBe('text/event-stream');
    expect(first?.body).toMatchObject({ model: 'test-model', stream: true });
    const toolNames = (first?.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(toolNames).toEqual(['search_skills', 'read_skill', 'write_artifact', 'record_decision', 'flag_milestone', 'learn_skill', 'list_peers', 'delegate']);
    const [system, user] = first?.body.messages ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('You are CEO (ceo)');
    expect(system?.content).toContain('You run Acme, a small company that sells anvils.');
    expect(system?.content).toContain('Direct reports: CTO (cto)');
    expect(system?.content).toContain('### Weekly report (/weekly-report)');
    expect(system?.content).toContain('1. Step title 1');
    expect(user).toEqual({ role: 'user', content: 'How do I write the weekly report?' });

    const messages = second?.body.messages ?? [];
    expect(messages).toHaveLength(4);
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'search_skills', arguments: '{"query": "weekly report", "limit": 3}' } }],
    });
    expect(messages[3]?.role).toBe('tool');
    expect(messages[3]?.tool_call_id).toBe('call_abc');
    expect(JSON.parse(messages[3]?.content ?? '')).toEqual({ matches: [{ slug: 'weekly-report', score: 0.9, reason: 'matched "weekly report"' }] });
  });

  it('maps learn_skill to skill_learned', async () => {
    const body = '## Step 1: Count\n\nCount the anvils.\n\n## Step 2: Report\n\nWrite it down.';
    const { events } = await converse([
      { toolCalls: [{ name: 'learn_skill', arguments: JSON.stringify({ slug: 'count-anvils', name: 'Count anvils', summary: 'Counts the stock.', body }) }] },
      { text: 'Counted and learned.' },
    ]);
    expect(types(events)).toEqual(['tool_call', 'skill_learned', 'tool_result', 'text', 'complete']);
    expect(events[1]).toEqual({ type: 'skill_learned', content: { slug: 'count-anvils', name: 'Count anvils', summary: 'Counts the stock.', body } });
    expect(events[2]).toMatchObject({ type: 'tool_result', content: { tool: 'learn_skill', result: { learned: 'count-anvils' } } });
  });

  it('maps write_artifact, record_decision, flag_milestone and read_skill; several calls in one round', async () => {
    const { events, tools, llm } = await converse([
      {
        toolCalls: [
          { name: 'read_skill', arguments: '{"slug":"weekly-report"}' },
          { name: 'record_decision', arguments: '{"title":"Baseline","body":"Use last week."}' },
        ],
      },
      {
        text: 'Writing it. ',
        toolCalls: [
          { name: 'write_artifact', arguments: ['{"name":"report.md",', '"content":"# Report\\n"}'] },
          { name: 'flag_milestone', arguments: '{"title":"Report written"}' },
        ],
      },
      { text: '  Done: report.md is on the shelf.  ' },
    ]);
    expect(types(events)).toEqual([
      'tool_call', 'tool_result', 'tool_call', 'decision', 'tool_result',
      'text', 'tool_call', 'tool_result', 'tool_call', 'milestone', 'tool_result',
      'text', 'complete',
    ]);
    expect(events[1]).toMatchObject({ content: { tool: 'read_skill', result: { slug: 'weekly-report', body: expect.stringContaining('Step 1: Step title 1') } } });
    expect(events[3]).toEqual({ type: 'decision', content: { title: 'Baseline', body: 'Use last week.' } });
    expect(events[7]).toEqual({ type: 'tool_result', content: { tool: 'write_artifact', result: { name: 'report.md', size: 9, content_type: 'text/markdown' } } });
    expect(events[9]).toEqual({ type: 'milestone', content: { title: 'Report written' } });
    expect(events.at(-1)).toEqual({ type: 'complete', content: { summary: 'Done: report.md is on the shelf.', artifacts: ['report.md'] } });
    expect(tools.artifacts.get('report.md')).toEqual({ content: '# Report\n', contentType: 'text/markdown' });
    const second = llm.requests[1]?.body.messages ?? [];
    expect(second.filter((message) => message.role === 'tool')).toHaveLength(2);
    const third = llm.requests[2]?.body.messages ?? [];
    expect(third.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'tool']);
    expect(third[5]).toMatchObject({ role: 'assistant', content: 'Writing it. ' });
  });

  it('answers bad arguments and unknown tools with an error result and goes on', async () => {
    const { events, llm } = await converse([
      { toolCalls: [{ name: 'search_skills', arguments: '{"query": ' }, { name: 'launch_rockets', arguments: '{}' }, { name: 'flag_milestone', arguments: '{}' }] },
      { text: 'Sorry.' },
    ]);
    expect(events[0]).toEqual({ type: 'tool_call', content: { tool: 'search_skills', args: '{"query": ' } });
    expect(events[1]).toMatchObject({ type: 'tool_result', content: { tool: 'search_skills', result: { error: expect.stringMatching(/^invalid JSON arguments: /) } } });
    expect(events[3]).toMatchObject({ content: { tool: 'launch_rockets', result: { error: expect.stringContaining('unknown tool "launch_rockets"') } } });
    expect(events[5]).toMatchObject({ content: { tool: 'flag_milestone', result: { error: 'invalid arguments for flag_milestone: missing "title"' } } });
    expect(events.at(-1)).toEqual({ type: 'complete', content: { summary: 'Sorry.', artifacts: [] } });
    expect(llm.requests[1]?.body.messages.filter((message) => message.role === 'tool')).toHaveLength(3);
  });

  it('completes with "done" when the final answer has no text, and long summaries are cut to 500 characters', async () => {
    expect((await converse([{ text: [] }])).events).toEqual([{ type: 'complete', content: { summary: 'done', artifacts: [] } }]);
    await llm?.close();
    const { events } = await converse([{ text: 'x'.repeat(800) }]);
    const last = events.at(-1);
    expect(last?.type === 'complete' && last.content.summary.length).toBe(500);
  });

  it('turns reasoning deltas into a thought', async () => {
    const { events } = await converse([{ reasoning: 'Let me think about anvils.', text: 'Anvils.' }]);
    expect(events).toEqual([
      { type: 'thought', content: 'Let me think about anvils.' },
      { type: 'text', content: 'Anvils.' },
      { type: 'complete', content: { summary: 'Anvils.', artifacts: [] } },
    ]);
  });

  it('reports a provider HTTP error with its message, never the API key', async () => {
    const { events } = await converse([{ status: 500, error: `internal failure for key ${API_KEY}` }]);
    expect(events).toEqual([{ type: 'error', content: { message: 'the model provider answered HTTP 500: internal failure for key [redacted]' } }]);
  });

  it('reports a 401 and an error chunk in the stream', async () => {
    expect((await converse([{ status: 401, error: 'Incorrect API key provided' }])).events).toEqual([
      { type: 'error', content: { message: 'the model provider answered HTTP 401: Incorrect API key provided' } },
    ]);
    await llm?.close();
    expect((await converse([{ streamError: 'model overloaded' }])).events).toEqual([
      { type: 'error', content: { message: 'the model provider reported an error: model overloaded' } },
    ]);
  });

  it('reports a stream cut before it finished', async () => {
    const { events } = await converse([{ text: ['partial '], truncate: true }]);
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({ type: 'text', content: 'partial ' });
    expect(events[1]).toMatchObject({ type: 'error', content: { message: expect.stringMatching(/^lost the connection to the model provider at http:\/\/127\.0\.0\.1:\d+\/v1 \(.+\)$/) } });
  });

  it('accepts a stream that ends after its finish reason without [DONE]', async () => {
    const { events } = await converse([{ text: 'fine', noDone: true }]);
    expect(events.at(-1)).toEqual({ type: 'complete', content: { summary: 'fine', artifacts: [] } });
  });

  it('bounds the tool rounds', async () => {
    const { events, llm } = await converse(() => ({ toolCalls: [{ name: 'flag_milestone', arguments: '{"title":"again"}' }] }), {}, { maxToolRounds: 2 });
    expect(llm.requests).toHaveLength(3);
    expect(events.filter((event) => event.type === 'milestone')).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: 'error', content: { message: 'the model used more than 2 rounds of tool calls in one turn (ORG_LLM_MAX_ROUNDS sets the limit)' } });
  });

  it('reports an unreachable provider', async () => {
    llm = await startScriptedLlm([]);
    const url = llm.url;
    await llm.close();
    llm = undefined;
    const recorder = recordingEmit();
    await createLlmRuntime({ url, model: 'm', apiKey: API_KEY }).run(sampleTurn(), recorder.emit, fakeTools(), new AbortController().signal);
    expect(recorder.events).toEqual([{ type: 'error', content: { message: `the model provider at ${url} is unreachable (ECONNREFUSED)` } }]);
  });

  it('stops on abort and closes the request', async () => {
    llm = await startScriptedLlm([{ text: Array.from({ length: 50 }, (_, i) => `w${i} `), delayMs: 50 }]);
    const server = llm;
    const recorder = recordingEmit();
    const controller = new AbortController();
    const running = createLlmRuntime({ url: server.url, model: 'm', apiKey: '' }).run(sampleTurn(), recorder.emit, fakeTools(), controller.signal);
    await recorder.waitFor(2);
    controller.abort(new Error('cancelled'));
    const seen = recorder.events.length;
    await running;
    expect(recorder.events).toHaveLength(seen);
    await server.changes.until(() => server.clientClosed === 1, 'the provider to see the stream closed');
    // A later turn against the same provider, run to its end: the aborted one emitted nothing meanwhile.
    const later = recordingEmit();
    await createLlmRuntime({ url: server.url, model: 'm', apiKey: '' }).run(sampleTurn(), later.emit, fakeTools(), new AbortController().signal);
    expect(later.events.at(-1)?.type).toBe('error'); // the script has no second reply: the provider answers 500
    expect(recorder.events).toHaveLength(seen);
    expect(server.clientClosed).toBe(1);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('validates its configuration when created', () => {
    expect(() => createLlmRuntime({ url: 'nope', model: 'm', apiKey: '' })).toThrow(OrgError);
    expect(() => createLlmRuntime({ url: 'http://x/v1', model: ' ', apiKey: '' })).toThrow(/model/);
    expect(() => createLlmRuntime({ url: 'http://x/v1', model: 'm', apiKey: '', maxToolRounds: -1 })).toThrow(/maxToolRounds/);
  });
});
