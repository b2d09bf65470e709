/**
 * The LLM runtime end to end through HTTP (API.md §6 "Routing"): org configured with
 * `config.llm` pointing at a scripted OpenAI-compatible server that streams real
 * chunks. A conversation with tool calls (search_skills against the real library,
 * record_decision, write_artifact) becomes tool_call/tool_result/decision/text/complete
 * events on the stream, the decision lands in the workspace log, the artifact on the
 * shelf; a provider error ends the turn with `error`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from './helpers/scripted-llm.js';

const API_KEY = 'sk-chat-llm-0123456789abcdef';

/** Replies by the user message and by how many tool results the conversation already holds. */
function script(request: RecordedRequest): ScriptedReply {
  const user = request.body.messages.find((message) => message.role === 'user')?.content ?? '';
  const toolResults = request.body.messages.filter((message) => message.role === 'tool').length;
  if (user.startsWith('overloaded')) return { status: 503, error: `model overloaded (key ${API_KEY})` };
  if (toolResults === 0) {
    return {
      text: 'Let me check. ',
      toolCalls: [
        { id: 'call_search', name: 'search_skills', arguments: ['{"query": "weekly', ' report", "limit": 3}'] },
        { id: 'call_decide', name: 'record_decision', arguments: '{"title": "Send the report on Fridays", "body": "Friday is when the numbers are final."}' },
        { id: 'call_write', name: 'write_artifact', arguments: JSON.stringify({ name: '../notes.md', content: '# Notes\n\nFriday.\n' }) },
      ],
    };
  }
  return { text: ['The weekly ', 'report skill ', 'covers it.'] };
}

describe('LLM runtime through HTTP', () => {
  let c: ChatFixture;
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm(script);
    c = await startChat({ config: { llm: { url: llm.url, model: 'test-model', apiKey: API_KEY } } });
    await c.t.app.skills.upsert({
      slug: 'weekly-report',
      frontmatter: { type: 'skill', name: 'Weekly report', status: 'complete', tags: ['report', 'weekly'], summary: 'Write the weekly report for the team.' },
      body: '## [gather] Step 1: Gather the numbers\n\nCollect the figures of the week.\n\n## [write] Step 2: Write the report\n\nWrite it up.\n',
    });
  });
  afterAll(async () => {
    await c.close();
    await llm.close();
  });

  it('runs a conversation with tool calls end to end', async () => {
    const stream = await c.send('How do I write the weekly report?');
    expect(stream.status).toBe(200);
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    expect(events.map((event) => event.type)).toEqual([
      'text',
      'tool_call',
      'tool_result',
      'tool_call',
      'decision',
      'tool_result',
      'tool_call',
      'tool_result',
      'text',
      'text',
      'text',
      'complete',
    ]);
    expect(events[1]?.content).toEqual({ tool: 'search_skills', args: { query: 'weekly report', limit: 3 } });
    const matches = (events[2]?.content as { result: { matches: { slug: string; score: number; reason: string }[] } }).result.matches;
    expect(matches[0]).toMatchObject({ slug: 'weekly-report', score: expect.any(Number), reason: expect.any(String) });
    expect(events[4]?.content).toEqual({ title: 'Send the report on Fridays', body: 'Friday is when the numbers are final.' });
    expect(events[7]?.content).toEqual({ tool: 'write_artifact', result: { name: 'notes.md', size: 17, content_type: 'text/markdown' } });
    expect(events.at(-1)?.content).toEqual({ summary: 'The weekly report skill covers it.', artifacts: ['notes.md'] });

    // What the provider saw: the model, the tools, the enriched prompt, then the tool results.
    expect(llm.requests).toHaveLength(2);
    const [first, second] = llm.requests;
    expect(first?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(first?.body).toMatchObject({ model: 'test-model', stream: true });
    const system = first?.body.messages[0]?.content ?? '';
    expect(system).toContain('Chief Financial Officer (exec-cfo)');
    expect(system).toContain('Reports to: Chief Executive Officer (exec-ceo)');
    expect(system).toContain('### Weekly report (/weekly-report)');
    expect(system).toContain('Collect the figures of the week.');
    const tools = second?.body.messages.filter((message) => message.role === 'tool') ?? [];
    expect(tools.map((message) => message.tool_call_id)).toEqual(['call_search', 'call_decide', 'call_write']);
    expect(JSON.parse(tools[1]!.content!)).toEqual({ recorded: true });

    // Side effects: the workspace log, the shelf, the history.
    const log = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}/log`, headers: c.t.auth(c.owner.token) });
    expect(log.json<{ entries: { type: string; title: string }[] }>().entries[0]).toMatchObject({ type: 'decision', title: 'Send the report on Fridays' });
    const file = await c.t.server.inject({
      method: 'GET',
      url: `/api/org/structures/${c.structure.id}/agents/${c.roleId}/artifacts/notes.md`,
      headers: c.t.auth(c.owner.token),
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toMatch(/^text\/markdown/);
    expect(file.body).toBe('# Notes\n\nFriday.\n');
    const agent = await c.settled(String(stream.headers['x-org-run-id']));
    expect(agent).toMatchObject({ status: 'complete', text: 'Let me check. The weekly report skill covers it.', artifacts: ['notes.md'] });
  });

  it('a provider error ends the turn with error, without the API key', async () => {
    const stream = await c.send('overloaded please');
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    expect(events.map((event) => event.type)).toEqual(['error']);
    expect((events[0]?.content as { message: string }).message).toMatch(/^the model provider answered HTTP 503: model overloaded/);
    expect(stream.text).not.toContain(API_KEY);
    expect((await c.settled(String(stream.headers['x-org-run-id']))).status).toBe('error');
  });
});
