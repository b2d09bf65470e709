/**
 * Hardening figures (issue 28, the reliability harness's leftovers), measured by the prober
 * of test/helpers/prober.ts on real `org serve` processes (so the server's RSS is its own
 * and a stalled server shows as requests without an answer):
 *
 * - `fuzz`: fuzzed requests over HTTP (BENCH_HARDENING_RUNS, default 10,000; `/mcp` JSON-RPC
 *   among them, invalid bodies included): 5xx, 4xx that are not problem details, requests
 *   without an answer within 10 s; and malformed HTTP answered other than with a problem;
 * - `kill`: temp files left after BENCH_HARDENING_KILLS (default 20) SIGKILL cycles under writes;
 * - `streams`, `relay`: RSS kept after 500 chat streams (BENCH_HARDENING_STREAMS), local turns
 *   and turns relayed from the example container agent;
 * - `slow`: 200 half-open connections from one address that stop halfway through their
 *   headers: how many the server held (its per-address share), health meanwhile, and the
 *   sockets it still holds once each was answered.
 *
 *   npm run bench -- hardening
 *   BENCH_HARDENING_PARTS=fuzz,kill npm run bench -- hardening
 */
import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startServe, type ServeChild } from '../test/helpers/child.js';
import { ADMIN_TOKEN } from '../test/helpers/instance.js';
import { fuzzOverHttp, killCycles, PROBER_INBOUND_SECRET, probeProtocol, rssOf } from '../test/helpers/prober.js';
import { envNumber, readSse, spawnAgent } from './support.js';

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
    const runs = envNumber('BENCH_HARDENING_RUNS', 10_000);
    const fuzz = await fuzzOverHttp({ url: server.child.url, home: server.home }, runs, envNumber('BENCH_HARDENING_SEED', 20261128));
    for (const example of fuzz.examples.slice(0, 10)) console.log(`hardening: ${example}`);
    const protocol = await probeProtocol(server.child.url);
    for (const example of protocol.examples) console.log(`hardening: ${example}`);
    return {
      'hardening.fuzz.sent': fuzz.sent,
      'hardening.fuzz.sent_to_mcp': fuzz.sentToMcp,
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

/**
 * RSS kept after BENCH_HARDENING_STREAMS (500) simultaneous chat streams, each on a node of
 * its own: `local` turns of the scripted runtime (a playbook's steps), or `container` turns
 * relayed from the example container agent (`flood` BENCH_HARDENING_EVENTS text events, 400).
 * Retained is the RSS after the streams and a settle of 2 s minus the RSS after a warm-up
 * of 20 streams; the idle RSS of the same server is printed beside it.
 */
async function streamFigures(kind: 'local' | 'container'): Promise<Record<string, number>> {
  const count = envNumber('BENCH_HARDENING_STREAMS', 500);
  const events = envNumber('BENCH_HARDENING_EVENTS', 400);
  const agent = kind === 'container' ? await spawnAgent() : undefined;
  const server = await serve({ ORG_RATE_LIMIT: '1000000000', ORG_MAX_CONNECTIONS: '100000', ORG_MAX_CONNECTIONS_PER_ADDRESS: '100000' });
  const dispatcher = new Agent({ connections: null, pipelining: 1, bodyTimeout: 0, headersTimeout: 0 });
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const call = async <T>(path: string, body: unknown): Promise<T> => {
    const answer = await request(`${server.child.url}${path}`, { method: 'POST', headers, dispatcher, body: JSON.stringify(body) });
    const text = await answer.body.text();
    if (answer.statusCode >= 300) throw new Error(`POST ${path} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  };
  try {
    const pid = server.child.process.pid!;
    const rssIdle = await rssOf(pid);
    // A node per stream (50 a structure), so no stream waits behind another's turn.
    const targets: { structureId: string; roleId: string }[] = [];
    for (let s = 0; targets.length < count; s++) {
      const structure = await call<{ id: string }>('/api/org/structures', { name: `Streams ${s}`, template: 'blank' });
      let root: string | undefined;
      for (let n = 0; n < 50 && targets.length < count; n++) {
        const roleId = `stream-n${n}`;
        const node = await call<{ id: string }>(`/api/org/structures/${structure.id}/agents`, {
          role_id: roleId,
          label: `Node ${n}`,
          ...(agent ? { container_url: agent.url } : {}),
          ...(root ? { parent_id: root } : {}),
        });
        root ??= node.id;
        targets.push({ structureId: structure.id, roleId });
      }
    }
    const message = agent ? `flood ${events}` : 'chase overdue invoices';
    const stream = async (i: number) => {
      const target = targets[i % targets.length]!;
      const answer = await request(`${server.child.url}/api/org/chat/message`, {
        method: 'POST',
        headers,
        dispatcher,
        body: JSON.stringify({ structure_id: target.structureId, role_id: target.roleId, message }),
      });
      return readSse(answer.body);
    };
    for (let i = 0; i < 20; i++) await stream(i);
    const rssWarm = await rssOf(pid);
    const results = await Promise.all(Array.from({ length: count }, (_, i) => stream(i)));
    const completed = results.filter((result) => result.lastType === 'complete').length;
    const frames = results.reduce((sum, result) => sum + result.frames, 0);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rssAfter = await rssOf(pid);
    return {
      [`hardening.streams.${kind}`]: count,
      [`hardening.streams.${kind}.completed`]: completed,
      [`hardening.streams.${kind}.events`]: frames,
      [`hardening.streams.${kind}.rss.idle_mb`]: mb(rssIdle),
      [`hardening.streams.${kind}.rss.warm_mb`]: mb(rssWarm),
      [`hardening.streams.${kind}.rss.after_mb`]: mb(rssAfter),
      [`hardening.streams.${kind}.rss.retained_mb`]: mb(rssAfter - rssWarm),
      [`hardening.streams.${kind}.rss.retained_over_idle_mb`]: mb(rssAfter - rssIdle),
    };
  } finally {
    await dispatcher.close();
    await stop(server);
    await agent?.close();
  }
}

/** Sockets a process holds open (Linux `/proc/<pid>/fd`). */
async function socketsOf(pid: number): Promise<number> {
  const fds = await readdir(`/proc/${pid}/fd`);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return links.filter((link) => link.startsWith('socket:')).length;
}

/**
 * 200 connections from one address that stop halfway through their headers and never
 * close their side (half-open): how many the server held (its per-address share), whether
 * health answered meanwhile, when the last one was answered (the headers timeout, 2 s here),
 * and how many sockets the server still held once every one had its answer (0: released).
 */
async function slowFigures(): Promise<Record<string, number>> {
  const server = await serve({}, ['--headers-timeout', '2', '--request-timeout', '4']);
  const { port } = new URL(server.child.url);
  const pid = server.child.process.pid!;
  try {
    const socketsBefore = await socketsOf(pid);
    const opened = 200;
    const sockets: { socket: Socket; answered: Promise<number>; received: () => string }[] = [];
    for (let i = 0; i < opened; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.2', allowHalfOpen: true });
      socket.on('error', () => undefined);
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      // The server's side ends (its answer, or a refusal): this client never closes its own.
      const answered = new Promise<number>((resolve) => {
        socket.once('end', () => resolve(performance.now()));
        socket.once('close', () => resolve(performance.now()));
      });
      await new Promise<void>((resolve) => {
        socket.once('connect', () => resolve());
        socket.once('close', () => resolve());
      });
      socket.write('GET /api/org/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      sockets.push({ socket, answered, received: () => received });
    }
    const started = performance.now();
    // A connection of its own, closed after the answer: it is not counted among those left.
    const health = await request(`${server.child.url}/api/org/health`, { reset: true });
    await health.body.text();
    const healthMs = performance.now() - started;
    // Those past the share are closed at once; the rest when their headers timeout passes.
    const answeredAt = await Promise.all(sockets.map((entry) => entry.answered));
    // Held: kept open until their headers timeout, then answered 408 (the rest were refused as they opened).
    const held = sockets.filter((entry) => entry.received().startsWith('HTTP/1.1 408 ')).length;
    const socketsLeft = (await socketsOf(pid)) - socketsBefore;
    for (const { socket } of sockets) socket.destroy();
    return {
      'hardening.slow.opened': opened,
      'hardening.slow.held': held,
      'hardening.slow.health_status': health.statusCode,
      'hardening.slow.health_ms': Number(healthMs.toFixed(1)),
      'hardening.slow.refused_at_once': sockets.filter((entry) => entry.received() === '').length,
      'hardening.slow.answered_by_timeout_s': Number(((Math.max(...answeredAt) - started) / 1000).toFixed(1)),
      'hardening.slow.server_sockets_left': socketsLeft,
    };
  } finally {
    await stop(server);
  }
}

async function killFigures(): Promise<Record<string, number>> {
  const kills = await killCycles(envNumber('BENCH_HARDENING_KILLS', 20));
  for (const file of kills.stray) console.log(`hardening: stray temp file ${file}`);
  return {
    'hardening.kill.cycles': kills.cycles,
    'hardening.kill.writes_acknowledged': kills.writes,
    'hardening.kill.stray_temp_files': kills.stray.length,
  };
}

const PARTS: Record<string, () => Promise<Record<string, number>>> = {
  kill: killFigures,
  fuzz: fuzzFigures,
  slow: slowFigures,
  streams: () => streamFigures('local'),
  relay: () => streamFigures('container'),
};

/** Every hardening figure, or those of the parts BENCH_HARDENING_PARTS names (`kill,fuzz,slow,streams,relay`). */
export async function benchHardening(): Promise<Record<string, number>> {
  const names = (process.env.BENCH_HARDENING_PARTS ?? Object.keys(PARTS).join(',')).split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(name in PARTS));
  if (unknown.length > 0) throw new Error(`BENCH_HARDENING_PARTS: unknown part(s) ${unknown.join(', ')}; known: ${Object.keys(PARTS).join(', ')}`);
  const figures: Record<string, number> = {};
  for (const name of names) {
    const part = await PARTS[name]!();
    // Printed as each part ends: a part that fails later loses none of these.
    for (const [figure, value] of Object.entries(part)) console.log(`hardening: ${figure} ${value}`);
    Object.assign(figures, part);
  }
  return figures;
}
