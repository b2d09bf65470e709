/**
 * The sync endpoint (API.md §6): the same events as the stream for the same
 * deterministic runtime, `{run_id, events, summary, artifacts}`; past the sync timeout a
 * 504 problem carrying `run_id` while the turn goes on to complete. The turns that must
 * finish run with the default timeout (minutes); the one that must time out is held by a
 * gate that the test opens only after the 504, so no outcome depends on the machine's speed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { dispatchRuntime, startChat, withoutTimestamps, type ChatFixture } from './helpers/chat.js';
import { UUID } from './helpers/shapes.js';


/** Deterministic: the events depend only on the message; writes one artifact. */
const deterministic: AgentRuntime = {
  name: 'deterministic',
  async run(turn, emit, tools) {
    await emit({ type: 'thought', content: `reading "${turn.message}"` });
    await emit({ type: 'tool_call', content: { tool: 'count', args: { text: turn.message } } });
    await emit({ type: 'tool_result', content: { tool: 'count', result: { words: turn.message.split(' ').length } } });
    await emit({ type: 'decision', content: { title: 'Answer briefly', body: 'Short answers are enough.' } });
    await emit({ type: 'milestone', content: { title: 'Counted' } });
    for (const word of turn.message.split(' ')) await emit({ type: 'text', content: `${word} ` });
    const name = await tools.writeArtifact('count.txt', `${turn.message.split(' ').length} words`, 'text/plain');
    await emit({ type: 'complete', content: { summary: `counted ${turn.message.split(' ').length} words`, artifacts: [name] } });
  },
};

/** A runtime that starts, then waits until the test opens its gate, then completes. */
function gatedRuntime(): AgentRuntime & { open(): void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    name: 'gated',
    open,
    async run(_turn, emit) {
      await emit({ type: 'thought', content: 'slow start' });
      await gate;
      for (const word of ['a ', 'b ', 'c ']) await emit({ type: 'text', content: word });
      await emit({ type: 'complete', content: { summary: 'slow but done', artifacts: [] } });
    },
  };
}

describe('sync endpoint', () => {
  let c: ChatFixture;
  beforeAll(async () => {
    c = await startChat({
      deps: {
        runtime: () =>
          dispatchRuntime(
            {
              fail: createScriptedRuntime([{ type: 'thought', content: 'hmm' }, { type: 'error', content: { message: 'could not do it' } }]),
            },
            deterministic,
          ),
      },
    });
  });
  afterAll(async () => {
    await c.close();
  });

  it('gives the same event types and contents as the stream', async () => {
    const message = 'count these four words';
    const stream = await c.send(message);
    await stream.ended;
    const streamed = stream.frames().map((frame) => frame.event!);

    const response = await c.sync(message);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json<{ run_id: string; events: EventInput[] & { timestamp: string }[]; summary: string; artifacts: string[] }>();
    expect(Object.keys(body).sort()).toEqual(['artifacts', 'events', 'run_id', 'summary']);
    expect(body.run_id).toMatch(UUID);
    expect(body.run_id).not.toBe(stream.headers['x-org-run-id']);
    expect(withoutTimestamps(body.events)).toEqual(withoutTimestamps(streamed));
    expect(body.events.map((event) => event.type)).toEqual([
      'thought',
      'tool_call',
      'tool_result',
      'decision',
      'milestone',
      'text',
      'text',
      'text',
      'text',
      'complete',
    ]);
    expect(body.summary).toBe('counted 4 words');
    expect(body.artifacts).toEqual(['count.txt']);
    // The sync run is in the history like any other, with the same events.
    const agent = await c.settled(body.run_id);
    expect(agent.events).toEqual(body.events);
    expect(agent).toMatchObject({ status: 'complete', summary: 'counted 4 words', artifacts: ['count.txt'] });
  });

  it('a turn that ends with error: 200 with the error as last event, empty summary and artifacts', async () => {
    const response = await c.sync('fail now');
    expect(response.statusCode).toBe(200);
    const body = response.json<{ events: { type: string; content: unknown }[]; summary: string; artifacts: string[] }>();
    expect(withoutTimestamps(body.events)).toEqual([
      { type: 'thought', content: 'hmm' },
      { type: 'error', content: { message: 'could not do it' } },
    ]);
    expect(body.summary).toBe('');
    expect(body.artifacts).toEqual([]);
  });

  it('validates like the stream: 400 before any run, 404 for an unknown node', async () => {
    const before = (await c.history({ limit: 500 })).length;
    const bad = await c.sync('x', { body: { structure_id: c.structure.id, role_id: c.roleId, message: '' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_request' });
    const unknown = await c.sync('hello', { roleId: 'exec-nobody' });
    expect(unknown.statusCode).toBe(404);
    expect((await c.history({ limit: 500 })).length).toBe(before);
  });
});

describe('sync endpoint past its timeout', () => {
  let c: ChatFixture;
  const gated = gatedRuntime();
  beforeAll(async () => {
    c = await startChat({ config: { syncTimeoutMs: 300 }, deps: { runtime: () => gated } });
  });
  afterAll(async () => {
    await c.close();
  });

  it('answers 504 with run_id, and the turn still completes after it', async () => {
    const response = await c.sync('slow one');
    expect(response.statusCode).toBe(504);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = response.json<{ status: number; code: string; run_id: string; detail: string }>();
    expect(problem).toMatchObject({ status: 504, code: 'timeout' });
    expect(problem.run_id).toMatch(UUID);
    expect(problem.detail).toContain(`GET /api/org/chat/runs/${problem.run_id}/events`);
    expect(problem.detail).not.toMatch(/\/src\/|\.ts\b|\bat \S+:\d+/);
    expect((await c.agentMessage(problem.run_id))?.status).toBe('running');

    // The turn goes on (it could not finish before the gate opened); it can be followed, and it completes.
    const follow = await c.resume(problem.run_id);
    gated.open();
    await follow.ended;
    expect(follow.frames().map((frame) => frame.event?.type)).toEqual(['thought', 'text', 'text', 'text', 'complete']);
    const agent = await c.settled(problem.run_id);
    expect(agent).toMatchObject({ status: 'complete', summary: 'slow but done' });
  });
});
