/**
 * Cluster benchmark (issue 14): real `org serve` processes on one embedded PostgreSQL
 * database, with 1, 2 and 3 instances, each figure beside the 1-instance one of the same
 * run (`…ratio`):
 *
 * 1. `cluster.<n>.turns_per_s`: chat turns (`POST /api/org/chat/message/sync`) completed per
 *    second, BENCH_CLUSTER_CONCURRENCY at once (default 16), spread round-robin over the
 *    instances and over 32 nodes (turns of one node run one at a time), for
 *    BENCH_CLUSTER_SECONDS (default 8). The agent is a container that answers at once, so
 *    the figure is org's own cost per turn: records, events, queue, wake-ups.
 * 2. `cluster.<n>.reads_per_s`: `GET /api/org/structures/{id}` per second, 32 at once, spread
 *    the same way, for the same time.
 * 3. `cluster.ttfe.*`: time from releasing a held turn on A to its `complete` event arriving
 *    on a stream of that run opened on B (cross-instance: the event is persisted on A, B is
 *    woken by NOTIFY and reads it), beside the same event arriving on A's own stream
 *    (`same_instance`), over BENCH_CLUSTER_TTFE turns (default 100): p50 and p95 in ms.
 *
 * The load generator runs in this process and shares the machine's cores with the servers
 * and PostgreSQL: on a small machine the point is the overhead per instance, not scaling.
 * Run alone with `npx tsx bench/cluster.ts`, or through `npm run bench -- cluster`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool, request } from 'undici';
import { envNumber } from './support.js';
import { ensureBuilt, startServe, type ServeChild } from '../test/helpers/child.js';
import { startGateAgent, type GateAgent } from '../test/helpers/gate-agent.js';
import { createDatabase, dropDatabase, startPostgres } from '../test/support/postgres.js';

const ADMIN = 'bench-cluster-token-0123456789abcdef';
const NODES = 32;

type Figures = Record<string, number | string>;

async function call<T>(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await request(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path} → ${response.statusCode} ${text}`);
  return JSON.parse(text) as T;
}

/** Runs `work` with `concurrency` workers until `ms` have passed; resolves with completions per second. */
async function rate(concurrency: number, ms: number, work: (worker: number, i: number) => Promise<void>): Promise<number> {
  const end = performance.now() + ms;
  const started = performance.now();
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      for (let i = 0; performance.now() < end; i++) {
        await work(worker, i);
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Reads an SSE body until a frame whose data has `"type":"<type>"`; resolves with the time it arrived. */
async function timeOf(body: AsyncIterable<Buffer | string>, type: string): Promise<number> {
  let text = '';
  for await (const chunk of body) {
    text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (text.includes(`"type":"${type}"`)) return performance.now();
  }
  throw new Error(`the stream ended without a ${type} event`);
}

/** The cluster benchmark; resolves with its figures. */
export async function benchCluster(): Promise<Figures> {
  ensureBuilt();
  const seconds = envNumber('BENCH_CLUSTER_SECONDS', 8);
  const concurrency = envNumber('BENCH_CLUSTER_CONCURRENCY', 16);
  const ttfeTurns = envNumber('BENCH_CLUSTER_TTFE', 100);
  const figures: Figures = { 'cluster.load_before': loadavg().map((value) => value.toFixed(2)).join(' ') };
  const postgres = await startPostgres();
  const dirs: string[] = [];
  const instances: ServeChild[] = [];
  let gate: GateAgent | undefined;
  let url: string | undefined;
  try {
    gate = await startGateAgent();
    url = await createDatabase(postgres.adminUrl, 'org_bench');
    const start = async () => {
      const home = await mkdtemp(join(tmpdir(), 'org-bench-cluster-'));
      dirs.push(home);
      const child = await startServe({
        home,
        args: ['--no-demo', '--no-bundled'],
        env: { ORG_STORE_URL: url!, ORG_ADMIN_TOKEN: ADMIN, ORG_RATE_LIMIT: '1000000000', ORG_CONFIG_DIR: join(home, 'config') },
      });
      instances.push(child);
      return child;
    };
    const first = await start();
    const structure = await call<{ id: string }>(first.url, 'POST', '/api/org/structures', { name: 'Bench', template: 'blank' });
    const root = await call<{ id: string }>(first.url, 'POST', `/api/org/structures/${structure.id}/agents`, { role_id: 'bench-root', label: 'Root' });
    const roles: string[] = [];
    for (let i = 0; i < NODES; i++) {
      roles.push(`bench-${i}`);
      await call(first.url, 'POST', `/api/org/structures/${structure.id}/agents`, { role_id: `bench-${i}`, label: `Node ${i}`, parent_id: root.id, container_url: gate.url });
    }

    for (let n = 1; n <= 3; n++) {
      while (instances.length < n) await start();
      const bases = instances.map((instance) => instance.url);
      const pools = bases.map((base) => new Pool(base, { connections: 64 }));
      try {
        // Warm-up: every instance has loaded the structure and opened its connections.
        for (const base of bases) await call(base, 'GET', `/api/org/structures/${structure.id}`);
        const turns = await rate(concurrency, seconds * 1000, async (worker, i) => {
          const pool = pools[(worker + i) % pools.length]!;
          const response = await pool.request({
            path: '/api/org/chat/message/sync',
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ structure_id: structure.id, role_id: roles[worker % NODES], message: `quick ${n}-${worker}-${i}` }),
          });
          await response.body.text();
          if (response.statusCode !== 200) throw new Error(`turn → ${response.statusCode}`);
        });
        const reads = await rate(32, seconds * 1000, async (worker, i) => {
          const response = await pools[(worker + i) % pools.length]!.request({ path: `/api/org/structures/${structure.id}`, method: 'GET', headers: { authorization: `Bearer ${ADMIN}` } });
          await response.body.text();
          if (response.statusCode !== 200) throw new Error(`read → ${response.statusCode}`);
        });
        figures[`cluster.${n}.turns_per_s`] = Math.round(turns);
        figures[`cluster.${n}.reads_per_s`] = Math.round(reads);
        if (n > 1) {
          figures[`cluster.${n}.turns_ratio`] = turns / Number(figures['cluster.1.turns_per_s']);
          figures[`cluster.${n}.reads_ratio`] = reads / Number(figures['cluster.1.reads_per_s']);
        }
      } finally {
        await Promise.all(pools.map((pool) => pool.close()));
      }
    }

    // Cross-instance time to the event: a held turn on A, followed on A and on B.
    const [a, b] = [instances[0]!, instances[1]!];
    const same: number[] = [];
    const cross: number[] = [];
    for (let i = 0; i < ttfeTurns; i++) {
      const message = `hold-ttfe-${i}`;
      const sent = await request(`${a.url}/api/org/chat/message`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ structure_id: structure.id, role_id: roles[i % NODES], message }),
      });
      const runId = String(sent.headers['x-org-run-id']);
      const turn = await gate.turn(message);
      const follow = await request(`${b.url}/api/org/chat/runs/${runId}/events`, { headers: { authorization: `Bearer ${ADMIN}` } });
      if (follow.statusCode !== 200) throw new Error(`follow → ${follow.statusCode}`);
      sent.body.setEncoding('utf8');
      follow.body.setEncoding('utf8');
      const onA = timeOf(sent.body, 'complete');
      const onB = timeOf(follow.body, 'complete');
      // B's stream is open once it has replayed the events so far (the text event).
      const released = performance.now();
      turn.release();
      same.push((await onA) - released);
      cross.push((await onB) - released);
    }
    figures['cluster.ttfe.same_instance_p50_ms'] = percentile(same, 50);
    figures['cluster.ttfe.same_instance_p95_ms'] = percentile(same, 95);
    figures['cluster.ttfe.cross_instance_p50_ms'] = percentile(cross, 50);
    figures['cluster.ttfe.cross_instance_p95_ms'] = percentile(cross, 95);
    figures['cluster.load_after'] = loadavg().map((value) => value.toFixed(2)).join(' ');
    return figures;
  } finally {
    await Promise.all(instances.map((instance) => instance.stop('SIGTERM')));
    await gate?.close();
    if (url) await dropDatabase(postgres.adminUrl, url).catch(() => undefined);
    await postgres.stop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  benchCluster().then(
    (figures) => {
      for (const [key, value] of Object.entries(figures)) console.log(`${key}  ${typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(3) : value}`);
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
