/**
 * Hardening figures (issue 28, the reliability harness's leftovers), measured by the prober
 * of test/helpers/prober.ts on real `org serve` processes (so the server's RSS is its own
 * and a stalled server shows as requests without an answer):
 *
 * - fuzzed requests over HTTP (BENCH_HARDENING_RUNS, default 3,000): 5xx, 4xx that are not
 *   problem details, requests without an answer within 10 s;
 * - malformed HTTP answered other than with a problem;
 * - temp files left after BENCH_HARDENING_KILLS (default 20) SIGKILL cycles under writes;
 * - RSS kept after 500 chat streams (BENCH_HARDENING_STREAMS): RSS after the streams and a
 *   settle of 2 s, minus RSS after a warm-up of 20, beside the idle RSS of the same run;
 * - slow connections one address can hold (200 opened, the per-address cap 128) while
 *   health still answers, and how many are left once the headers timeout (2 s here) passed.
 *
 *   npm run bench -- hardening
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startServe, type ServeChild } from '../test/helpers/child.js';
import { ADMIN_TOKEN } from '../test/helpers/instance.js';
import { fuzzOverHttp, killCycles, PROBER_INBOUND_SECRET, probeProtocol, rssOf } from '../test/helpers/prober.js';
import { envNumber, readSse } from './support.js';

const mb = (bytes: number) => Number((bytes / 1024 / 1024).toFixed(1));

/** Starts `org serve` on a fresh home with the prober's administrator token and `env`. */
async function serve(env: Record<string, string> = {}, args: string[] = []): Promise<{ child: ServeChild; home: string }> {
  const home = await mkdtemp(join(tmpdir(), 'org-bench-hardening-'));
  const child = await startServe({
    home,
    args: ['--no-demo', ...args],
    env: { ORG_ADMIN_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: join(home, 'config'), ORG_INBOUND_SECRET: PROBER_INBOUND_SECRET, ...env },
  });
  await child.ready;
  return { child, home };
}

async function stop({ child, home }: { child: ServeChild; home: string }): Promise<void> {
  await child.stop('SIGTERM');
  await rm(home, { recursive: true, force: true });
}

async function fuzzFigures(): Promise<Record<string, number>> {
  const server = await serve({ ORG_RATE_LIMIT: '1000000000', ORG_AUTH_FAILURE_LIMIT: '1000000000' });
  try {
    const runs = envNumber('BENCH_HARDENING_RUNS', 3000);
    const fuzz = await fuzzOverHttp({ url: server.child.url, home: server.home }, runs, envNumber('BENCH_HARDENING_SEED', 20261128));
    for (const example of fuzz.examples.slice(0, 10)) console.log(`hardening: ${example}`);
    const protocol = await probeProtocol(server.child.url);
    for (const example of protocol.examples) console.log(`hardening: ${example}`);
    return {
      'hardening.fuzz.sent': fuzz.sent,
      'hardening.fuzz.5xx': fuzz.serverErrors,
      'hardening.fuzz.non_problem_4xx': fuzz.nonProblem4xx,
      'hardening.fuzz.no_answer': fuzz.hung,
      'hardening.protocol.sent': protocol.sent,
      'hardening.protocol.non_problem': protocol.nonProblem,
    };
  } finally {
    await stop(server);
  }
}

async function streamFigures(): Promise<Record<string, number>> {
  const count = envNumber('BENCH_HARDENING_STREAMS', 500);
  const server = await serve({ ORG_RATE_LIMIT: '1000000000', ORG_MAX_CONNECTIONS: '100000', ORG_MAX_CONNECTIONS_PER_ADDRESS: '100000' });
  const dispatcher = new Agent({ connections: null, pipelining: 1, bodyTimeout: 0, headersTimeout: 0 });
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  try {
    const pid = server.child.process.pid!;
    const rssIdle = await rssOf(pid);
    const created = await request(`${server.child.url}/api/org/structures`, { method: 'POST', headers, dispatcher, body: JSON.stringify({ name: 'Streams', template: 'exec-team' }) });
    const structure = (await created.body.json()) as { id: string; agents: { role_id: string }[] };
    const roles = structure.agents.map((agent) => agent.role_id);
    const stream = async (i: number) => {
      const answer = await request(`${server.child.url}/api/org/chat/message`, {
        method: 'POST',
        headers,
        dispatcher,
        body: JSON.stringify({ structure_id: structure.id, role_id: roles[i % roles.length], message: `chase overdue invoices ${i}` }),
      });
      return readSse(answer.body);
    };
    for (let i = 0; i < 20; i++) await stream(i);
    const rssWarm = await rssOf(pid);
    const results = await Promise.all(Array.from({ length: count }, (_, i) => stream(i)));
    const completed = results.filter((result) => result.lastType === 'complete').length;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rssAfter = await rssOf(pid);
    return {
      'hardening.streams': count,
      'hardening.streams.completed': completed,
      'hardening.rss.idle_mb': mb(rssIdle),
      'hardening.rss.warm_mb': mb(rssWarm),
      'hardening.rss.after_streams_mb': mb(rssAfter),
      'hardening.rss.retained_mb': mb(rssAfter - rssWarm),
    };
  } finally {
    await dispatcher.close();
    await stop(server);
  }
}

async function slowFigures(): Promise<Record<string, number>> {
  const server = await serve({}, ['--headers-timeout', '2', '--request-timeout', '4']);
  const { port } = new URL(server.child.url);
  try {
    const opened = 200;
    const sockets: { socket: Socket; closed: Promise<number> }[] = [];
    for (let i = 0; i < opened; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.2' });
      socket.on('error', () => undefined);
      const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
      await new Promise<void>((resolve) => {
        socket.once('connect', () => resolve());
        socket.once('close', () => resolve());
      });
      socket.write('GET /api/org/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      sockets.push({ socket, closed });
    }
    const started = performance.now();
    const health = await request(`${server.child.url}/api/org/health`);
    await health.body.text();
    const healthMs = performance.now() - started;
    // Those past the share are closed at once; the rest when their headers timeout passes.
    const closedAt = await Promise.all(sockets.map((entry) => entry.closed));
    const held = closedAt.filter((at) => at > started).length;
    return {
      'hardening.slow.opened': opened,
      'hardening.slow.held': held,
      'hardening.slow.health_status': health.statusCode,
      'hardening.slow.health_ms': Number(healthMs.toFixed(1)),
      'hardening.slow.closed_by_timeout_s': Number(((Math.max(...closedAt) - started) / 1000).toFixed(1)),
    };
  } finally {
    await stop(server);
  }
}

/** Every hardening figure. */
export async function benchHardening(): Promise<Record<string, number>> {
  const kills = await killCycles(envNumber('BENCH_HARDENING_KILLS', 20));
  for (const file of kills.stray) console.log(`hardening: stray temp file ${file}`);
  return {
    ...(await fuzzFigures()),
    'hardening.kill.cycles': kills.cycles,
    'hardening.kill.writes_acknowledged': kills.writes,
    'hardening.kill.stray_temp_files': kills.stray.length,
    ...(await slowFigures()),
    ...(await streamFigures()),
  };
}
