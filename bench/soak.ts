/**
 * Soak benchmark (issue 10, item 11): does `org serve` hold its memory under sustained
 * streaming? It starts the built `org serve` as a child process (so the RSS sampled is
 * the server's alone) and the example container agent as another, gives
 * BENCH_SOAK_STREAMS nodes (default 500) that agent as their container, and then, for
 * BENCH_SOAK_SECONDS (default 60), keeps one SSE chat stream open per node: each client
 * sends `flood BENCH_SOAK_EVENTS` (default 400 text events and `complete`), reads the
 * stream to its end and sends the next turn at once. Every finished turn leaves its run
 * in the engine's recent-run cache and its messages in the history cache, both bounded
 * by bytes and count, so RSS has to level off instead of growing with the turns.
 *
 * Every BENCH_SOAK_SAMPLE_SECONDS (default 5) it prints the server's RSS (VmRSS from
 * /proc, Linux) and the turns finished so far. The figures compare the RSS peak of the
 * second half of the run with the peak of the first half (1.0 = flat), measured in the
 * same run against the idle RSS after start-up.
 *
 *   npm run bench:soak
 *   BENCH_SOAK_SECONDS=20 BENCH_SOAK_STREAMS=200 npm run bench:soak
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startServe } from '../test/helpers/child.js';
import { envNumber, readSse, spawnAgent } from './support.js';

const ADMIN = 'bench-soak-admin-token-0123456789abcdef';

/** Resident set size of a process in bytes (Linux `/proc/<pid>/status`). */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));

/** Runs the soak and returns its figures (`soak.*`). */
export async function benchSoak(): Promise<Record<string, number>> {
  const streams = envNumber('BENCH_SOAK_STREAMS', 500);
  const seconds = envNumber('BENCH_SOAK_SECONDS', 60);
  const events = envNumber('BENCH_SOAK_EVENTS', 400);
  const sampleEvery = envNumber('BENCH_SOAK_SAMPLE_SECONDS', 5);
  const home = await mkdtemp(join(tmpdir(), 'org-bench-soak-'));
  const agent = await spawnAgent();
  const server = await startServe({
    home,
    args: ['--no-demo'],
    env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), ORG_RATE_LIMIT: '1000000000', ORG_MAX_CONNECTIONS: '100000', ORG_MAX_CONNECTIONS_PER_ADDRESS: '100000' },
  });
  const pid = server.process.pid;
  if (pid === undefined) throw new Error('org serve has no pid');
  const dispatcher = new Agent({ connections: null, pipelining: 1, keepAliveTimeout: 30_000, bodyTimeout: 0, headersTimeout: 0 });
  const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const call = async (method: 'POST' | 'GET', path: string, body?: unknown) => {
    const response = await request(`${server.url}${path}`, { method, headers, dispatcher, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${method} ${path} answered ${response.statusCode}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  try {
    const targets: { structureId: string; roleId: string }[] = [];
    for (let s = 0; targets.length < streams; s++) {
      const structure = await call('POST', '/api/org/structures', { name: `Soak ${s}`, template: 'blank' });
      let root: string | undefined;
      for (let n = 0; n < 50 && targets.length < streams; n++) {
        const roleId = `soak-n${n}`;
        const node = await call('POST', `/api/org/structures/${String(structure.id)}/agents`, {
          role_id: roleId,
          label: `Node ${n}`,
          container_url: agent.url,
          ...(root ? { parent_id: root } : {}),
        });
        root ??= String(node.id);
        targets.push({ structureId: String(structure.id), roleId });
      }
    }
    const rssIdle = await rssOf(pid);

    let turns = 0;
    let failed = 0;
    let frames = 0;
    const deadline = performance.now() + seconds * 1000;
    const samples: { at: number; rss: number; turns: number }[] = [];
    const started = performance.now();
    console.log(`soak: ${streams} streams, ${events} events a turn, ${seconds} s; idle RSS ${mb(rssIdle)} MB`);
    const sampler = setInterval(() => {
      void rssOf(pid).then((rss) => {
        const at = Math.round((performance.now() - started) / 1000);
        samples.push({ at, rss, turns });
        console.log(`soak: t=${String(at).padStart(3)} s  rss=${mb(rss).toFixed(1).padStart(7)} MB  turns=${turns}`);
      });
    }, sampleEvery * 1000);
    const client = async (target: { structureId: string; roleId: string }) => {
      while (performance.now() < deadline) {
        const response = await request(`${server.url}/api/org/chat/message`, {
          method: 'POST',
          headers,
          dispatcher,
          body: JSON.stringify({ structure_id: target.structureId, role_id: target.roleId, message: `flood ${events}` }),
        });
        if (response.statusCode !== 200) throw new Error(`chat answered ${response.statusCode}: ${await response.body.text()}`);
        const result = await readSse(response.body);
        frames += result.frames;
        if (result.lastType === 'complete') turns++;
        else failed++;
      }
    };
    await Promise.all(targets.map(client));
    clearInterval(sampler);
    const rssEnd = await rssOf(pid);
    const half = seconds / 2;
    const peak = (list: typeof samples) => Math.max(...list.map((sample) => sample.rss));
    const first = samples.filter((sample) => sample.at <= half);
    const second = samples.filter((sample) => sample.at > half);
    if (first.length === 0 || second.length === 0) throw new Error('too few samples: raise BENCH_SOAK_SECONDS or lower BENCH_SOAK_SAMPLE_SECONDS');
    const elapsed = (performance.now() - started) / 1000;
    return {
      'soak.streams': streams,
      'soak.seconds': Math.round(elapsed),
      'soak.turns': turns,
      'soak.turns_failed': failed,
      'soak.events': frames,
      'soak.turns_per_s': Number((turns / elapsed).toFixed(1)),
      'soak.rss.idle_mb': mb(rssIdle),
      'soak.rss.first_half_peak_mb': mb(peak(first)),
      'soak.rss.second_half_peak_mb': mb(peak(second)),
      'soak.rss.end_mb': mb(rssEnd),
      'soak.rss.growth_ratio': Number((peak(second) / peak(first)).toFixed(3)),
      'soak.rss.per_turn_after_first_half_kb': Number(((peak(second) - peak(first)) / 1024 / Math.max(1, turns - (first.at(-1)?.turns ?? 0))).toFixed(2)),
    };
  } finally {
    await dispatcher.close();
    await server.stop('SIGTERM');
    await agent.close();
    await rm(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchSoak().then(
    (figures) => {
      const width = Math.max(...Object.keys(figures).map((key) => key.length));
      for (const [key, value] of Object.entries(figures)) console.log(`${key.padEnd(width)}  ${value}`);
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
