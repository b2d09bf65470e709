/**
 * Several `org serve` processes on one PostgreSQL database (issue 14): three real child
 * processes share a database from the test run's embedded PostgreSQL. A structure
 * created on one is read on the others; a run started on A streams live and resumes
 * (Last-Event-ID) on B and C with no gap and no duplicate; a cancel sent to C stops the
 * runtime on A; two messages to one node through A and B run one at a time in arrival
 * order; and when A is SIGKILLed mid-run, its run is closed once by another instance and
 * the node's queued message proceeds. Turns go to a container agent the test holds, so
 * every wait is on an event. A skill written through B reaches C through the announcement
 * of its commit; one pushed to the shared git remote from outside reaches A by its fetch.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { ensureBuilt, type ServeChild } from './helpers/child.js';
import { callJson as api, startMember, stopCluster } from './helpers/cluster.js';
import { startGateAgent, type GateAgent } from './helpers/gate-agent.js';
import { git } from './helpers/git.js';
import { eventually, open, type SseResponse } from './helpers/sse.js';

/** Short enough to wait for in a test, long enough for a heartbeat on a loaded machine. */
const LEASE_MS = 4000;

const ids = (response: SseResponse) => response.frames().map((frame) => Number(frame.id));
const types = (response: SseResponse) => response.frames().map((frame) => frame.event?.type);

describe('three org serve instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let gate: GateAgent;
  const dirs: string[] = [];
  const instances: ServeChild[] = [];
  let a: ServeChild;
  let b: ServeChild;
  let c: ServeChild;
  let token: string;
  let structureId: string;
  let rootId: string;
  let remote: string;

  /** `fetchMs`: the period of the skills fetch (only A's is short: B and C learn of pushes through announcements). */
  const start = (fetchMs = 3_600_000) =>
    startMember({ instances, dirs }, database, {
      prefix: 'org-cluster-',
      env: { ORG_LEASE_MS: String(LEASE_MS), ORG_SKILLS_REMOTE: remote, ORG_SKILLS_FETCH_MS: String(fetchMs) },
    });

  /** Sends a message through `via`; resolves with the open stream and its run id. */
  const send = async (via: ServeChild, roleId: string, message: string) => {
    const stream = await open(`${via.url}/api/org/chat/message`, { token, body: { structure_id: structureId, role_id: roleId, message } });
    expect(stream.status).toBe(200);
    return { stream, runId: String(stream.headers['x-org-run-id']) };
  };

  const addNode = async (roleId: string) => {
    const added = await api(b.url, 'POST', `/api/org/structures/${structureId}/agents`, token, { role_id: roleId, label: roleId, parent_id: rootId, container_url: gate.url });
    expect(added.status).toBe(201);
  };

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    gate = await startGateAgent();
    const shared = await mkdtemp(join(tmpdir(), 'org-cluster-skills-'));
    dirs.push(shared);
    remote = join(shared, 'library.git');
    await git(shared, 'init', '--bare', '--quiet', '--initial-branch=main', remote);
    a = await start(300);
    // The first start's token line follows the listening line.
    await eventually(() => a.stdout.some((line) => line.includes('token (shown once')));
    token = /token \(shown once[^)]*\): (\S+)/.exec(a.stdout.join('\n'))?.[1] ?? '';
    expect(token).toMatch(/^org_/);
    [b, c] = await Promise.all([start(), start()]);
  }, 180_000);

  afterAll(() => stopCluster({ instances, services: [gate], database, dirs }));

  it('a structure created on A is read on B and C; a node added on B is seen on A and C', async () => {
    const created = await api<{ id: string }>(a.url, 'POST', '/api/org/structures', token, { name: 'Cluster', template: 'blank' });
    expect(created.status).toBe(201);
    structureId = created.body.id;
    for (const instance of [b, c]) {
      const read = await api<{ name: string }>(instance.url, 'GET', `/api/org/structures/${structureId}`, token);
      expect(read).toMatchObject({ status: 200, body: { name: 'Cluster' } });
    }
    const root = await api<{ id: string }>(b.url, 'POST', `/api/org/structures/${structureId}/agents`, token, { role_id: 'team-root', label: 'Root' });
    expect(root.status).toBe(201);
    rootId = root.body.id;
    await addNode('team-work');
    for (const instance of [a, c]) {
      const read = await api<{ agents: { role_id: string }[] }>(instance.url, 'GET', `/api/org/structures/${structureId}`, token);
      expect(read.body.agents.map((node) => node.role_id).sort()).toEqual(['team-root', 'team-work']);
    }
  });

  it('a run started on A streams live on B and resumes on C after Last-Event-ID, without gap or duplicate', async () => {
    const { stream, runId } = await send(a, 'team-work', 'hold-stream');
    const turn = await gate.turn('hold-stream');
    const onB = await open(`${b.url}/api/org/chat/runs/${runId}/events`, { token });
    expect(onB.status).toBe(200);
    await onB.until((response) => types(response).includes('text'));
    const onC = await open(`${c.url}/api/org/chat/runs/${runId}/events`, { token, headers: { 'last-event-id': '1' } });
    turn.release();
    await Promise.all([stream.ended, onB.ended, onC.ended]);
    const all = stream.frames();
    expect(types(stream).at(-1)).toBe('complete');
    expect(onB.frames().map((frame) => frame.data)).toEqual(all.map((frame) => frame.data));
    expect(ids(onB)).toEqual(ids(stream));
    expect(ids(onC)).toEqual(ids(stream).filter((id) => id > 1));
    expect(onC.frames().map((frame) => frame.data)).toEqual(all.slice(1).map((frame) => frame.data));
  });

  it('a cancel sent to C stops the runtime on A, and the run ends with "cancelled" everywhere', async () => {
    const { stream, runId } = await send(a, 'team-work', 'hold-cancel');
    const turn = await gate.turn('hold-cancel');
    const cancelled = await api(c.url, 'POST', `/api/org/chat/runs/${runId}/cancel`, token);
    expect(cancelled.status).toBe(202);
    await turn.aborted;
    await stream.ended;
    const last = stream.frames().at(-1)?.event;
    expect(last).toMatchObject({ type: 'error', content: { message: 'cancelled' } });
    const again = await api(b.url, 'POST', `/api/org/chat/runs/${runId}/cancel`, token);
    expect(again.status).toBe(409);
  });

  it('messages to one node through A and B run one at a time, in arrival order', async () => {
    await addNode('team-order');
    gate.started.length = 0;
    const first = await send(a, 'team-order', 'hold-first');
    const turn = await gate.turn('hold-first');
    const second = await send(b, 'team-order', 'quick-second');
    const third = await send(a, 'team-order', 'quick-third');
    const fourth = await send(c, 'team-order', 'quick-fourth');
    // Nothing after the first may have reached the agent while it holds the node.
    expect(gate.started).toEqual(['hold-first']);
    turn.release();
    await Promise.all([first, second, third, fourth].map((sent) => sent.stream.ended));
    expect(gate.started).toEqual(['hold-first', 'quick-second', 'quick-third', 'quick-fourth']);
    for (const sent of [first, second, third, fourth]) expect(types(sent.stream).at(-1)).toBe('complete');
  });

  it('a skill written through B is searchable on C; one pushed to the remote from outside reaches A', async () => {
    const search = async (via: ServeChild, query: string) =>
      (await api<{ matches: { slug: string }[] }>(via.url, 'POST', '/api/org/knowledge/search', token, { query, structure_id: structureId })).body.matches.map((m) => m.slug);
    const written = await api(b.url, 'POST', '/api/org/knowledge/skills', token, {
      structure_id: structureId,
      slug: 'reconcile-ledger',
      frontmatter: { type: 'skill', name: 'Reconcile the ledger', category: 'finance', difficulty: 'low', tags: ['ledger'], status: 'complete', summary: 'Match the ledger to the bank statement.', tool_url: null },
      body: '## [match] Step 1: Match each line\n\nTick off every bank line.\n',
    });
    expect(written.status).toBe(201);
    expect(await git(remote, 'log', '--format=%s', 'main')).toContain('skill reconcile-ledger: create');
    await eventually(async () => (await search(c, 'reconcile the ledger')).includes('reconcile-ledger'));

    const person = join(dirs[dirs.length - 1]!, 'person');
    await git(dirs[dirs.length - 1]!, 'clone', '--quiet', remote, person);
    await writeFile(
      join(person, 'renew-domain.md'),
      '---\ntype: skill\nname: Renew the domain name\ncategory: ops\ndifficulty: low\ntags: [domain]\nstatus: complete\nsummary: Renew the company domain before it lapses.\nlearned_by: user\nlearned_at: 2026-01-01T00:00:00.000Z\ntool_url: null\n---\n## [renew] Step 1: Renew\n\nPay the registrar.\n',
    );
    await git(person, 'add', 'renew-domain.md');
    await git(person, '-c', 'user.email=p@example.com', '-c', 'user.name=P', 'commit', '--quiet', '-m', 'renew-domain');
    await git(person, 'push', '--quiet', 'origin', 'HEAD:main');
    await eventually(async () => (await search(a, 'renew the domain name')).includes('renew-domain'));
  });

  it('when A is killed mid-run, another instance closes its run once and the queued message proceeds', async () => {
    await addNode('team-kill');
    const running = await send(a, 'team-kill', 'hold-killed');
    await gate.turn('hold-killed');
    const queued = await send(b, 'team-kill', 'quick-after-kill');
    const watching = await open(`${c.url}/api/org/chat/runs/${running.runId}/events`, { token });
    await watching.until((response) => types(response).includes('text'));
    await a.stop('SIGKILL');
    await watching.ended;
    expect(watching.frames().at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'interrupted by restart' } });
    await queued.stream.ended;
    expect(types(queued.stream).at(-1)).toBe('complete');
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(`SELECT count(*) AS n FROM run_events WHERE run_id = $1 AND type IN ('complete', 'error')`, [running.runId]);
      expect(Number(rows[0]!.n)).toBe(1);
    } finally {
      await client.end();
    }
    const history = await api<{ run_id: string; sender: string; status: string }[]>(b.url, 'GET', `/api/org/chat/history?structure_id=${structureId}&role_id=team-kill`, token);
    expect(history.body.find((message) => message.run_id === running.runId && message.sender === 'agent')?.status).toBe('error');
  });
});
