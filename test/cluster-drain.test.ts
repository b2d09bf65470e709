/**
 * Graceful drain on SIGTERM with several `org serve` processes on one PostgreSQL database
 * (issue 14, item 8). A stream open on B for a run executing on A ends with a final
 * `retry:` field when B drains, and the client resumes on C with `Last-Event-ID`, with no
 * gap and no duplicate. A draining instance refuses new turns (503 with Retry-After) and
 * fails readiness while it still answers reads and lets its running turn finish; a turn
 * still running when the grace period ends is closed as interrupted, everywhere. Turns go
 * to a container agent the test holds, so every wait is on an event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { ensureBuilt, type ServeChild } from './helpers/child.js';
import { callJson, startMember, stopCluster } from './helpers/cluster.js';
import { startGateAgent, type GateAgent } from './helpers/gate-agent.js';
import { eventually, open, type SseResponse } from './helpers/sse.js';

const ADMIN = 'drain-admin-token-0123456789abcdef';

/** A JSON call as the administrator. */
const api = <T = Record<string, unknown>>(base: string, method: string, path: string, body?: unknown) => callJson<T>(base, method, path, ADMIN, body);

const ids = (response: SseResponse) => response.frames().map((frame) => Number(frame.id));
const data = (response: SseResponse) => response.frames().map((frame) => frame.data);

describe('SIGTERM drains an instance of a cluster', () => {
  let database: TestDatabase;
  let gate: GateAgent;
  const dirs: string[] = [];
  const instances: ServeChild[] = [];
  let structureId: string;

  const start = (args: string[] = []) => startMember({ instances, dirs }, database, { prefix: 'org-drain-', admin: ADMIN, args });

  const send = async (via: ServeChild, message: string) => {
    const stream = await open(`${via.url}/api/org/chat/message`, { token: ADMIN, body: { structure_id: structureId, role_id: 'team-worker', message } });
    expect(stream.status).toBe(200);
    return { stream, runId: String(stream.headers['x-org-run-id']) };
  };

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    gate = await startGateAgent();
    const first = await start();
    const created = await api<{ id: string }>(first.url, 'POST', '/api/org/structures', { name: 'Drain', template: 'blank' });
    expect(created.status).toBe(201);
    structureId = created.body.id;
    const root = await api<{ id: string }>(first.url, 'POST', `/api/org/structures/${structureId}/agents`, { role_id: 'team-lead', label: 'Lead' });
    const worker = await api(first.url, 'POST', `/api/org/structures/${structureId}/agents`, { role_id: 'team-worker', label: 'Worker', parent_id: root.body.id, container_url: gate.url });
    expect(worker.status).toBe(201);
  }, 180_000);

  afterAll(() => stopCluster({ instances, services: [gate], database, dirs }));

  it('a stream on B of a run on A ends with retry: when B drains, and resumes on C with no gap or duplicate', async () => {
    const [a, b, c] = [instances[0]!, await start(), await start()];
    const { stream, runId } = await send(a, 'hold-handover');
    const turn = await gate.turn('hold-handover');
    const onB = await open(`${b.url}/api/org/chat/runs/${runId}/events`, { token: ADMIN });
    expect(onB.status).toBe(200);
    await onB.until((response) => response.frames().some((frame) => frame.event?.type === 'text'));

    const exit = await b.stop('SIGTERM');
    await onB.ended;
    expect(exit.code).toBe(0);
    // The last thing B sent is the reconnection delay, after the last event it had.
    expect(onB.text).toMatch(/\n\nretry: \d+\n\n$/);
    expect(onB.frames().at(-1)?.event?.type).not.toBe('complete');
    const last = ids(onB).at(-1)!;

    const onC = await open(`${c.url}/api/org/chat/runs/${runId}/events`, { token: ADMIN, headers: { 'last-event-id': String(last) } });
    expect(onC.status).toBe(200);
    turn.release();
    await Promise.all([stream.ended, onC.ended]);
    expect(stream.frames().at(-1)?.event?.type).toBe('complete');
    expect([...data(onB), ...data(onC)]).toEqual(data(stream));
    expect([...ids(onB), ...ids(onC)]).toEqual(ids(stream));
  });

  it('a draining instance refuses new turns (503, Retry-After), fails readiness, answers reads and lets its turn finish', async () => {
    const a = await start();
    const c = instances[2]!;
    const { stream, runId } = await send(a, 'hold-finish');
    const turn = await gate.turn('hold-finish');
    const exited = a.stop('SIGTERM');
    await eventually(() => a.stderr().includes('SIGTERM received'));

    const refused = await api<{ status: number; detail: string }>(a.url, 'POST', '/api/org/chat/message', { structure_id: structureId, role_id: 'team-worker', message: 'too late' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.body.detail).toMatch(/shutting down/);
    const ready = await api<{ checks: { draining: boolean } }>(a.url, 'GET', '/api/org/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.draining).toBe(true);
    expect((await api(a.url, 'GET', `/api/org/structures/${structureId}`)).status).toBe(200);
    // Its own running turn is still followed there.
    const follow = await open(`${a.url}/api/org/chat/runs/${runId}/events`, { token: ADMIN, headers: { 'last-event-id': '1' } });
    expect(follow.status).toBe(200);

    turn.release();
    await Promise.all([stream.ended, follow.ended]);
    expect(stream.frames().at(-1)?.event?.type).toBe('complete');
    expect(follow.frames().at(-1)?.event?.type).toBe('complete');
    expect((await exited).code).toBe(0);
    const history = await api<{ run_id: string; sender: string; status: string }[]>(c.url, 'GET', `/api/org/chat/history?structure_id=${structureId}&role_id=team-worker`);
    expect(history.body.find((message) => message.run_id === runId && message.sender === 'agent')?.status).toBe('complete');
  });

  it('a turn still running when the grace period ends is closed as interrupted, on every instance', async () => {
    const d = await start(['--shutdown-grace', '0.2']);
    const c = instances[2]!;
    const { stream, runId } = await send(d, 'hold-grace');
    const turn = await gate.turn('hold-grace');
    const onC = await open(`${c.url}/api/org/chat/runs/${runId}/events`, { token: ADMIN });
    await onC.until((response) => response.frames().some((frame) => frame.event?.type === 'text'));

    const exited = d.stop('SIGTERM');
    await turn.aborted;
    await Promise.all([stream.ended, onC.ended]);
    expect(stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'interrupted by shutdown' } });
    expect(data(onC)).toEqual(data(stream));
    expect((await exited).code).toBe(0);
  });
});
