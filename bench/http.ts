/**
 * HTTP benchmark (issue 2): authenticated `GET /api/org/structures/{id}` on a real org
 * instance, side by side in the same run with a bare Fastify route returning the same
 * JSON, measured with autocannon. The ratio org/bare is the price of everything org adds
 * on top of Fastify: bearer auth (SHA-256 of the token, lookups), the per-token rate
 * limit, the role check, schema-driven serialization, the error-handling hooks.
 *
 * Besides req/s, it reports the CPU time the servers' process spends per request: the load
 * generator (autocannon's command) runs in a child process, so this process's CPU is the
 * servers' alone. CPU per request is far less disturbed by other work on a shared machine
 * than req/s, which depends on how much of the machine the servers get.
 *
 * Environment: BENCH_SECONDS (default 10) per measurement, BENCH_CONNECTIONS (default 10),
 * BENCH_WORKERS (autocannon worker threads inside its process; default 0).
 *
 * Run alone with `npx tsx bench/http.ts`, or through `npm run bench -- http`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { createApp } from '../src/app.js';
import { resolveConfig } from '../src/core/config.js';
import { buildServer } from '../src/server/index.js';
import { registerCompression } from '../src/server/http/compression.js';

/** One autocannon measurement. */
export interface HttpFigures {
  /** Mean requests per second. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** Requests sent in the measurement. */
  requests: number;
  /** CPU time (user + system) of the servers' process per answered request, in microseconds. */
  cpuUs: number;
}

/** autocannon's command-line entry (run as a child process: it loads nothing into this one). */
const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/** What this benchmark reads of autocannon's JSON result. */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Runs autocannon in a child process and answers its JSON result. */
function autocannon(url: string, headers: Record<string, string>, options: { connections: number; duration: number; workers: number }): Promise<AutocannonResult> {
  const args = [AUTOCANNON, '--json', '--no-progress', '-c', String(options.connections), '-d', String(options.duration)];
  if (options.workers > 0) args.push('-w', String(options.workers));
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${err.trim()}`));
      try {
        resolve(JSON.parse(out) as AutocannonResult);
      } catch {
        reject(new Error(`autocannon printed no JSON result: ${out.slice(0, 200)}`));
      }
    });
  });
}

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

async function listen(server: FastifyInstance): Promise<string> {
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  if (!address || typeof address !== 'object') throw new Error('server has no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * Runs autocannon against `url` (after a short warm-up) and checks every answer was a 2xx;
 * this process's CPU time over the measurement is the servers' (the generator is a child).
 */
async function measure(name: string, url: string, headers: Record<string, string>): Promise<HttpFigures> {
  const seconds = envNumber('BENCH_SECONDS', 10);
  const options = { connections: envNumber('BENCH_CONNECTIONS', 10), workers: envNumber('BENCH_WORKERS', 0) };
  await autocannon(url, headers, { ...options, duration: Math.min(2, Math.max(1, seconds / 5)) });
  const cpuBefore = process.cpuUsage();
  const result = await autocannon(url, headers, { ...options, duration: seconds });
  const cpu = process.cpuUsage(cpuBefore);
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  const requests = result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests, cpuUs: (cpu.user + cpu.system) / Math.max(1, requests) };
}

/** The round with the median CPU time per request. */
function medianCpu(rounds: HttpFigures[]): number {
  return [...rounds].sort((a, b) => a.cpuUs - b.cpuUs)[Math.floor(rounds.length / 2)]!.cpuUs;
}

/** The round with the median request rate. */
function median(rounds: HttpFigures[]): HttpFigures {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')).join('\n');
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

/**
 * Measures org and a bare Fastify route on the same structure detail and prints a table.
 * Returns the figures (`http.org.rps`, `http.org.p99_ms`, ..., `http.ratio.rps`).
 */
export async function benchHttp(): Promise<Record<string, number>> {
  const home = await mkdtemp(join(tmpdir(), 'org-bench-'));
  const adminToken = 'bench-admin-token-0123456789abcdef';
  const config = {
    ...resolveConfig({ home, port: 0, demo: false }, { ORG_ADMIN_TOKEN: adminToken, ORG_CONFIG_DIR: join(home, 'config') }),
    // The limit is not what is measured; it still runs on every request.
    rateLimit: 1_000_000_000,
  };
  const app = await createApp(config);
  const org = await buildServer(app, { version: 'bench' });
  const bare = Fastify({ logger: false });
  // The same route behind @fastify/compress with org's settings: the baseline of a browser's GET.
  const bareZip = Fastify({ logger: false });
  await registerCompression(bareZip);
  try {
    // An ordinary owner (a user token), the usual caller: hash, user lookup, membership.
    const { user, token } = await app.users.create('bench@example.com');
    const structure = await app.structures.create({ name: 'Bench', template: 'exec-team', ownerId: user.id });
    const body = app.structures.detail(structure.id);
    bare.get('/api/org/structures/:structure_id', async () => body);
    bareZip.get('/api/org/structures/:structure_id', async () => body);

    const orgUrl = `${await listen(org)}/api/org/structures/${structure.id}`;
    const bareUrl = `${await listen(bare)}/api/org/structures/${structure.id}`;
    const bareZipUrl = `${await listen(bareZip)}/api/org/structures/${structure.id}`;
    const headers = { authorization: `Bearer ${token}` };
    const br = { 'accept-encoding': 'br' };

    // Same answer from both, or the comparison means nothing.
    const [orgBody, bareBody] = await Promise.all([
      fetch(orgUrl, { headers }).then((response) => response.text()),
      fetch(bareUrl).then((response) => response.text()),
    ]);
    if (!isDeepStrictEqual(JSON.parse(orgBody), JSON.parse(bareBody))) throw new Error('org and the bare route answer different JSON');

    // Alternating rounds, the median of each side: a machine whose load changes during the
    // run then weighs on both sides alike instead of on whichever was measured first.
    const rounds = Math.max(1, Math.round(envNumber('BENCH_ROUNDS', 3)));
    const orgRounds: HttpFigures[] = [];
    const bareRounds: HttpFigures[] = [];
    const orgBrRounds: HttpFigures[] = [];
    const bareBrRounds: HttpFigures[] = [];
    for (let round = 0; round < rounds; round++) {
      orgRounds.push(await measure('org', orgUrl, headers));
      bareRounds.push(await measure('bare fastify', bareUrl, {}));
      orgBrRounds.push(await measure('org, br', orgUrl, { ...headers, ...br }));
      bareBrRounds.push(await measure('bare fastify + compress, br', bareZipUrl, br));
    }
    const orgBr = median(orgBrRounds);
    const bareBr = median(bareBrRounds);
    const orgBrCpu = medianCpu(orgBrRounds);
    const bareBrCpu = medianCpu(bareBrRounds);
    const orgFigures = median(orgRounds);
    const bareFigures = median(bareRounds);
    const orgCpu = medianCpu(orgRounds);
    const bareCpu = medianCpu(bareRounds);
    const figures = {
      'http.org.rps': round(orgFigures.rps, 0),
      'http.org.p50_ms': orgFigures.p50,
      'http.org.p99_ms': orgFigures.p99,
      'http.bare.rps': round(bareFigures.rps, 0),
      'http.bare.p50_ms': bareFigures.p50,
      'http.bare.p99_ms': bareFigures.p99,
      'http.org.cpu_us_per_request': round(orgCpu, 1),
      'http.bare.cpu_us_per_request': round(bareCpu, 1),
      'http.ratio.rps': round(orgFigures.rps / bareFigures.rps, 3),
      // Bare CPU ÷ org CPU per request: like the rps ratio, 1.0 means org's layer costs nothing.
      'http.ratio.cpu': round(bareCpu / orgCpu, 3),
      'http.ratio.p99': round(orgFigures.p99 / Math.max(bareFigures.p99, 0.001), 3),
      'http.body_bytes': Buffer.byteLength(orgBody),
      'http.br.org.rps': round(orgBr.rps, 0),
      'http.br.bare.rps': round(bareBr.rps, 0),
      'http.br.org.cpu_us_per_request': round(orgBrCpu, 1),
      'http.br.bare.cpu_us_per_request': round(bareBrCpu, 1),
      'http.br.ratio.rps': round(orgBr.rps / bareBr.rps, 3),
      'http.br.ratio.cpu': round(bareBrCpu / orgBrCpu, 3),
    };
    const seconds = envNumber('BENCH_SECONDS', 10);
    console.log(
      `\nGET /api/org/structures/{id} (exec-team, ${figures['http.body_bytes']} bytes), ` +
        `${envNumber('BENCH_CONNECTIONS', 10)} connections, ${seconds} s each, median of ${rounds} alternating rounds, autocannon workers: ${envNumber('BENCH_WORKERS', 0)}`,
    );
    console.log(
      table([
        ['', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'CPU µs/req'],
        ['org (auth, rate limit, schema)', String(figures['http.org.rps']), String(orgFigures.p50), String(orgFigures.p99), String(orgFigures.requests), orgCpu.toFixed(1)],
        ['bare fastify', String(figures['http.bare.rps']), String(bareFigures.p50), String(bareFigures.p99), String(bareFigures.requests), bareCpu.toFixed(1)],
        ['ratio org/bare (CPU: bare/org)', figures['http.ratio.rps'].toFixed(3), '', figures['http.ratio.p99'].toFixed(3), '', figures['http.ratio.cpu'].toFixed(3)],
        ['org, Accept-Encoding: br', String(figures['http.br.org.rps']), String(orgBr.p50), String(orgBr.p99), String(orgBr.requests), orgBrCpu.toFixed(1)],
        ['bare fastify + @fastify/compress, br', String(figures['http.br.bare.rps']), String(bareBr.p50), String(bareBr.p99), String(bareBr.requests), bareBrCpu.toFixed(1)],
        ['ratio org/bare, br (CPU: bare/org)', figures['http.br.ratio.rps'].toFixed(3), '', '', '', figures['http.br.ratio.cpu'].toFixed(3)],
      ]),
    );
    return figures;
  } finally {
    await Promise.allSettled([org.close(), bare.close(), bareZip.close()]);
    await app.close();
    await rm(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchHttp().then(
    () => undefined,
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
