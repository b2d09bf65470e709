/**
 * The LLM runtime delegates (API.md §10) through HTTP, against the recording
 * OpenAI-compatible server: the model sees `list_peers` and `delegate` among its tools,
 * finds its report with list_peers, hands it a task with delegate, and gets back the
 * delegated turn's summary (that turn being an LLM turn of the other node, which is told
 * who asked); the engine shows the delegation in the stream with the run id. A
 * delegation the rules refuse comes back to the model as an error, and the turn goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from './helpers/scripted-llm.js';

const systemOf = (request: RecordedRequest) => request.body.messages.find((message) => message.role === 'system')?.content ?? '';
const userOf = (request: RecordedRequest) => request.body.messages.find((message) => message.role === 'user')?.content ?? '';
const toolResults = (request: RecordedRequest) => request.body.messages.filter((message) => message.role === 'tool');

/** The CEO finds its CFO, delegates to it (or to itself, when asked to), then answers; the CFO answers at once. */
function script(request: RecordedRequest): ScriptedReply {
  if (systemOf(request).startsWith('You are Chief Financial Officer (exec-cfo)')) return { text: 'Closed March; net income is 42.' };
  const done = toolResults(request).length;
  const target = userOf(request).includes('yourself') ? 'exec-ceo' : 'exec-cfo';
  if (done === 0) return { toolCalls: [{ id: 'call_peers', name: 'list_peers', arguments: '{}' }] };
  if (done === 1) return { toolCalls: [{ id: 'call_delegate', name: 'delegate', arguments: ['{"role_id": "', target, '", "message": "Close the books for March and tell me the net income."}'] }] };
  return { text: 'March is closed.' };
}

describe('LLM runtime: list_peers and delegate', () => {
  let c: ChatFixture;
  let llm: ScriptedLlm;
  beforeAll(async () => {
    llm = await startScriptedLlm(script);
    c = await startChat({ config: { llm: { url: llm.url, model: 'test-model', apiKey: '' } } });
  });
  afterAll(async () => {
    await c.close();
    await llm.close();
  });

  it('offers both tools, described for handing work to reports', () => {
    // Checked on the first request of the next test too; here the declarations themselves.
    return c.sync('hello', { roleId: 'exec-cfo' }).then(() => {
      const tools = (llm.requests.at(-1)!.body.tools as { function: { name: string; description: string; parameters: { required: string[] } } }[]).map((tool) => tool.function);
      const delegate = tools.find((tool) => tool.name === 'delegate');
      expect(tools.find((tool) => tool.name === 'list_peers')?.description).toContain('Your direct reports are the peers whose parent is your role_id');
      expect(delegate?.parameters.required).toEqual(['role_id', 'message']);
      expect(delegate?.description).toContain('Delegate work that belongs to one of your reports');
    });
  });

  it('the model lists its peers, delegates to its CFO and answers with what came back; the stream shows the delegation with its run id', async () => {
    const before = llm.requests.length;
    const stream = await c.send('How did March close?', { roleId: 'exec-ceo' });
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    expect(events.map((event) => [event.type, (event.content as { tool?: string }).tool ?? null])).toEqual([
      ['tool_call', 'list_peers'],
      ['tool_result', 'list_peers'],
      ['tool_call', 'delegate'],
      ['tool_result', 'delegate'],
      ['text', null],
      ['complete', null],
    ]);
    const peers = events[1]!.content as { result: { self: { role_id: string; state: string }; peers: { role_id: string; parent: string | null }[] } };
    expect(peers.result.self).toMatchObject({ role_id: 'exec-ceo', state: 'working' });
    expect(peers.result.peers).toContainEqual(expect.objectContaining({ role_id: 'exec-cfo', parent: 'exec-ceo' }));
    const call = events[2]!.content as { args: { role_id: string; message: string; run_id: string } };
    expect(call.args).toEqual({ role_id: 'exec-cfo', message: 'Close the books for March and tell me the net income.', run_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(events[3]!.content).toEqual({ tool: 'delegate', result: { run_id: call.args.run_id, role_id: 'exec-cfo', status: 'complete', summary: 'Closed March; net income is 42.', artifacts: [] } });
    expect(events.at(-1)).toMatchObject({ type: 'complete', content: { summary: 'March is closed.' } });

    // The CFO's turn was an LLM turn told who asked and what the whole request is.
    const cfoRequest = llm.requests.slice(before).find((request) => systemOf(request).startsWith('You are Chief Financial Officer (exec-cfo)'))!;
    expect(systemOf(cfoRequest)).toContain('exec-ceo handed you this task as part of a larger request: "How did March close?"');
    expect(userOf(cfoRequest)).toBe('Close the books for March and tell me the net income.');
    // The model got the delegation's outcome as the tool's answer.
    const last = llm.requests.at(-1)!;
    expect(JSON.parse(toolResults(last).at(-1)!.content!)).toMatchObject({ status: 'complete', summary: 'Closed March; net income is 42.' });
    expect(await c.agentMessage(call.args.run_id, 'exec-cfo')).toMatchObject({ status: 'complete', summary: 'Closed March; net income is 42.' });
  });

  it('a refused delegation comes back to the model as an error and the turn goes on', async () => {
    const stream = await c.send('Do it yourself, please', { roleId: 'exec-ceo' });
    await stream.ended;
    const events = stream.frames().map((frame) => frame.event!);
    const refused = events.find((event) => event.type === 'tool_result' && (event.content as { tool: string }).tool === 'delegate');
    expect(refused?.content).toEqual({ tool: 'delegate', result: { run_id: null, role_id: 'exec-ceo', status: 'error', summary: 'exec-ceo cannot delegate to itself', artifacts: [], refused: 'self' } });
    expect(JSON.parse(toolResults(llm.requests.at(-1)!).at(-1)!.content!)).toMatchObject({ status: 'error', summary: 'exec-ceo cannot delegate to itself' });
    expect(events.at(-1)).toMatchObject({ type: 'complete', content: { summary: 'March is closed.' } });
  });
});
