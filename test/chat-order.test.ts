/**
 * One turn at a time per node (API.md §5, §6): a second message to a busy node waits
 * and starts only after the first completes, in order, its stream saying at once what it
 * waits for (issue 31.8) while the keepalive goes on; other nodes are not held up;
 * the node's `state` in the structure detail is `working` during a turn and `idle` after.
 * A turn the test must catch mid-way is held after its first event until the test lets
 * it go, so nothing depends on how fast the machine is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { dispatchRuntime, probe, startChat, type ChatFixture, type Probe } from './helpers/chat.js';
import { eventually } from './helpers/sse.js';

const SCRIPT: EventInput[] = [
  { type: 'thought', content: 'start' },
  { type: 'text', content: 'one ' },
  { type: 'text', content: 'two ' },
  { type: 'complete', content: { summary: 'done', artifacts: [] } },
];

/** Turns held after their first event, by message, until the test lets them go. */
const held = new Map<string, { go(): void; released: Promise<void> }>();
function hold(message: string): () => void {
  let go!: () => void;
  const released = new Promise<void>((resolve) => (go = resolve));
  held.set(message, { go, released });
  return go;
}

/** Emits SCRIPT, pausing after the first event while the turn's message is held. */
const heldScript: AgentRuntime = {
  name: 'held-script',
  async run(turn, emit) {
    for (const [index, event] of SCRIPT.entries()) {
      await emit(event);
      if (index === 0) await held.get(turn.message)?.released;
    }
  },
};

describe('turn order and node state', () => {
  let c: ChatFixture;
  let runtime: Probe;
  beforeAll(async () => {
    runtime = probe(heldScript);
    const throwing: AgentRuntime = {
      name: 'throwing',
      async run(_turn, emit) {
        await emit({ type: 'thought', content: 'about to throw' });
        throw new Error('runtime exploded');
      },
    };
    c = await startChat({ config: { keepaliveMs: 50 }, deps: { runtime: () => dispatchRuntime({ explode: throwing }, runtime) } });
  });
  afterAll(async () => {
    await c.close();
  });

  async function states(): Promise<Record<string, string>> {
    const response = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}`, headers: c.t.auth(c.owner.token) });
    expect(response.statusCode).toBe(200);
    const detail = response.json<{ agents: { role_id: string; state: string }[] }>();
    return Object.fromEntries(detail.agents.map((agent) => [agent.role_id, agent.state]));
  }

  it('is idle before any turn', async () => {
    expect(Object.values(await states()).every((state) => state === 'idle')).toBe(true);
  });

  it('runs two messages to one node in order: the second starts after the first completes', async () => {
    const release = hold('first');
    const first = await c.send('first');
    await first.until((r) => r.frames().length >= 1);
    const second = await c.send('second');
    const firstId = String(first.headers['x-org-run-id']);
    const secondId = String(second.headers['x-org-run-id']);

    // While the first runs: the node works, the other nodes do not; the second waits, and says so at once.
    const during = await states();
    expect(during[c.roleId]).toBe('working');
    expect(during[c.otherRoleId]).toBe('idle');
    await second.until((r) => r.frames().length >= 1);
    const said = `waiting for the node's current turn (run ${firstId})`;
    expect(second.frames().map((frame) => [frame.event?.type, frame.event?.content])).toEqual([['thought', said]]);
    expect(await c.agentMessage(secondId)).toMatchObject({ status: 'running', events: [{ type: 'thought', content: said }] });
    // The keepalive goes on while it waits.
    await second.until((r) => r.comments().includes('keepalive'));
    expect(second.frames()).toHaveLength(1);

    release();
    await Promise.all([first.ended, second.ended]);
    expect(runtime.log.filter((line) => line.endsWith('first') || line.endsWith('second'))).toEqual(['start first', 'end first', 'start second', 'end second']);
    const firstEnd = Date.parse(first.frames().at(-1)!.event!.timestamp);
    const secondStart = Date.parse(second.frames()[1]!.event!.timestamp);
    expect(secondStart).toBeGreaterThanOrEqual(firstEnd);
    expect(first.frames().at(-1)?.event?.type).toBe('complete');
    expect(first.frames()[0]?.event?.content).toBe('start'); // the first waited for nothing
    expect(second.frames().map((frame) => frame.event?.type)).toEqual(['thought', 'thought', 'text', 'text', 'complete']);

    // Newest first: second agent, second user, first agent, first user.
    const history = await c.history({ limit: 4 });
    expect(history.map((message) => `${message.sender}:${message.run_id === firstId ? 'first' : message.run_id === secondId ? 'second' : '?'}`)).toEqual([
      'agent:second',
      'user:second',
      'agent:first',
      'user:first',
    ]);

    expect((await states())[c.roleId]).toBe('idle');
  });

  it('three queued messages keep their order; another node is not held up', async () => {
    const releaseQ1 = hold('q1');
    const releaseOther = hold('other node');
    const streams = [await c.send('q1'), await c.send('q2'), await c.send('q3')];
    const other = await c.send('other node', { roleId: c.otherRoleId });
    await other.until((r) => r.frames().length >= 1);
    // The other node started while q1 was still running.
    expect(streams[0]!.frames().some((frame) => frame.event?.type === 'complete')).toBe(false);
    expect((await states())[c.otherRoleId]).toBe('working');
    releaseQ1();
    releaseOther();
    await Promise.all([...streams, other].map((stream) => stream.ended));
    const order = runtime.log.filter((line) => /q\d$/.test(line));
    expect(order).toEqual(['start q1', 'end q1', 'start q2', 'end q2', 'start q3', 'end q3']);
    const q1 = String(streams[0]!.headers['x-org-run-id']);
    expect(streams.map((stream) => stream.frames()[0]?.event?.content)).toEqual([
      'start',
      `waiting for the node's current turn (run ${q1})`,
      `waiting for the node's current turn (run ${q1}) and 1 more message ahead`,
    ]);
    for (let index = 1; index < streams.length; index++) {
      const previousEnd = Date.parse(streams[index - 1]!.frames().at(-1)!.event!.timestamp);
      expect(Date.parse(streams[index]!.frames()[1]!.event!.timestamp)).toBeGreaterThanOrEqual(previousEnd);
    }
    await eventually(async () => Object.values(await states()).every((state) => state === 'idle'));
  });

  it('a failing turn does not block the queue and leaves the node idle', async () => {
    const bad = await c.send('explode');
    const next = await c.send('after the explosion');
    await Promise.all([bad.ended, next.ended]);
    expect(bad.frames().map((frame) => frame.event?.type)).toEqual(['thought', 'error']);
    expect(bad.frames().at(-1)?.event?.content).toEqual({ message: 'runtime exploded' });
    expect(next.frames().at(-1)?.event?.type).toBe('complete');
    expect((await c.settled(String(bad.headers['x-org-run-id']))).status).toBe('error');
    expect((await states())[c.roleId]).toBe('idle');
  });
});
