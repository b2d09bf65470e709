/**
 * Delegation across `org serve` instances on one PostgreSQL database (API.md §10): a
 * container turn running on A delegates with its run token through B (as a load balancer
 * may route it), so the delegated run executes on B; A's stream shows the delegation
 * (and a refused one) through the store; cancelling on A reaches the run on B; and when
 * A is killed, the instance that closes A's run stops what it delegated on B. The
 * delegated node is the example agent as a real process, whose log says when org closes
 * its request; the delegating one is a container the test holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { startAgentProcess, type AgentProcess } from './helpers/agent-process.js';
import { ensureBuilt, type ServeChild } from './helpers/child.js';
import { callJson as api, startMember, stopCluster } from './helpers/cluster.js';
import { startHoldingContainer, type HoldingContainer } from './helpers/holding-container.js';
import { eventually, open, type SseResponse } from './helpers/sse.js';

/** Short enough to wait for in a test, long enough for a heartbeat on a loaded machine. */
const LEASE_MS = 4000;

const delegateEvents = (response: SseResponse) =>
  response
    .frames()
    .map((frame) => frame.event!)
    .filter((event) => (event.type === 'tool_call' || event.type === 'tool_result') && (event.content as { tool: string }).tool === 'delegate');
const hasType = (type: string) => (response: SseResponse) => response.frames().some((frame) => frame.event?.type === type);

describe('delegation across instances sharing a PostgreSQL store', () => {
  let database: TestDatabase;
  let agent: AgentProcess;
  let holder: HoldingContainer;
  const dirs: string[] = [];
  const instances: ServeChild[] = [];
  let a: ServeChild;
  let b: ServeChild;
  let token: string;
  let structureId: string;

  const start = () => startMember({ instances, dirs }, database, { prefix: 'org-cluster-delegation-', env: { ORG_LEASE_MS: String(LEASE_MS) } });
  /** Sends a message to team-lead through `via`: the held container run, its stream and its run token. */
  const hold = async (via: ServeChild, n: number) => {
    const stream = await open(`${via.url}/api/org/chat/message`, { token, body: { structure_id: structureId, role_id: 'team-lead', message: `hold ${n}` } });
    expect(stream.status).toBe(200);
    const turn = await holder.turn(n);
    return { stream, runId: String(stream.headers['x-org-run-id']), access: turn.delegation! };
  };

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    agent = await startAgentProcess();
    holder = await startHoldingContainer();
    a = await start();
    await eventually(() => a.stdout.some((line) => line.includes('token (shown once')));
    token = /token \(shown once[^)]*\): (\S+)/.exec(a.stdout.join('\n'))?.[1] ?? '';
    b = await start();
    const created = await api<{ id: string }>(a.url, 'POST', '/api/org/structures', token, { name: 'Relay', template: 'blank' });
    structureId = created.body.id;
    const root = await api<{ id: string }>(a.url, 'POST', `/api/org/structures/${structureId}/agents`, token, { role_id: 'team-lead', label: 'Lead', container_url: holder.url });
    expect(root.status).toBe(201);
    const work = await api(a.url, 'POST', `/api/org/structures/${structureId}/agents`, token, { role_id: 'team-work', label: 'Worker', parent_id: root.body.id, container_url: agent.url });
    expect(work.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await holder?.close();
    await agent?.stop();
    await stopCluster({ instances, database, dirs });
  });

  it('a run on A delegates through B: the delegated run executes on B, A shows it; a cancel on A reaches it on B', async () => {
    const parent = await hold(a, 1);
    expect(parent.access.api_url).toBe(a.url);
    // The container's delegation reaches B.
    const child = await open(`${b.url}/api/org/chat/message`, { token: parent.access.token, body: { structure_id: structureId, role_id: 'team-work', message: 'stall' } });
    expect(child.status).toBe(200);
    const childId = String(child.headers['x-org-run-id']);
    await child.until(hasType('thought'));
    await parent.stream.until((response) => delegateEvents(response).length >= 1);
    expect(delegateEvents(parent.stream)[0]).toMatchObject({ type: 'tool_call', content: { args: { role_id: 'team-work', message: 'stall', run_id: childId } } });
    // A refused delegation through B shows on A too.
    const self = await api(b.url, 'POST', '/api/org/chat/message/sync', parent.access.token, { structure_id: structureId, role_id: 'team-lead', message: 'again' });
    expect(self).toMatchObject({ status: 409, body: { code: 'delegation_refused', refused: 'self' } });
    await parent.stream.until((response) => delegateEvents(response).length >= 3);
    expect(delegateEvents(parent.stream).slice(1)).toEqual([
      expect.objectContaining({ type: 'tool_call', content: { tool: 'delegate', args: { role_id: 'team-lead', message: 'again', run_id: null } } }),
      expect.objectContaining({ type: 'tool_result', content: { tool: 'delegate', result: expect.objectContaining({ run_id: null, status: 'error', summary: 'team-lead cannot delegate to itself' }) } }),
    ]);

    const cancelled = await api(a.url, 'POST', `/api/org/chat/runs/${parent.runId}/cancel`, token);
    expect(cancelled.status).toBe(202);
    await Promise.all([parent.stream.ended, child.ended, agent.printed(`client closed (run ${childId})`)]);
    expect(parent.stream.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'cancelled', cancelled_by: 'owner@localhost' } });
    expect(child.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'cancelled', cancelled_by: 'owner@localhost' } });
    // The token ended with its run, on every instance.
    expect((await api(b.url, 'GET', `/api/org/structures/${structureId}`, parent.access.token)).status).toBe(401);
    expect((await api(a.url, 'GET', `/api/org/structures/${structureId}`, parent.access.token)).status).toBe(401);
  });

  it('when A is killed mid-run, the instance that closes its run stops what it delegated on B', async () => {
    const parent = await hold(a, 2);
    const child = await open(`${b.url}/api/org/chat/message`, { token: parent.access.token, body: { structure_id: structureId, role_id: 'team-work', message: 'stall' } });
    const childId = String(child.headers['x-org-run-id']);
    await child.until(hasType('thought'));
    const watching = await open(`${b.url}/api/org/chat/runs/${parent.runId}/events`, { token });
    await watching.until((response) => delegateEvents(response).length >= 1);
    await a.stop('SIGKILL');
    await Promise.all([watching.ended, child.ended, agent.printed(`client closed (run ${childId})`)]);
    expect(watching.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'interrupted by restart' } });
    expect(child.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'cancelled', cancelled_by: 'delegation:team-lead' } });
  });
});
