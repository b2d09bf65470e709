/**
 * The skill library as a user meets it, against its baseline in the same run: `org
 * serve` and a bare Fastify + raw MiniSearch server (`search-bare-server.js`) started as
 * child processes on the same N generated skill files. For each: time from spawn to the
 * listening line and to the first answered search (index ready), cold (no persisted
 * index) and warm (org only: with it); search p50/p99 over HTTP on the same queries,
 * interleaved so both see the same machine load; searches per second with 16 requests
 * in flight (alternating rounds); RSS after the queries and its
 * high-water mark. Ratios are org ÷ bare.
 *
 *   npx tsx bench/search-http.ts                      # 1,000, 10,000 and 50,000 skills
 *   BENCH_SEARCH_SIZES=10000 npx tsx bench/search-http.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { serializeSkill } from '../src/core/skills/index.js';
import { ensureBuilt, startServe, type ServeChild } from '../test/helpers/child.js';
import { generate, queries } from './search-core.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const BARE_SERVER = fileURLToPath(new URL('./search-bare-server.js', import.meta.url));

/** Skill counts measured by default (`BENCH_SEARCH_SIZES` overrides, comma-separated). */
export function searchSizes(): number[] {
  const raw = process.env.BENCH_SEARCH_SIZES;
  return raw ? raw.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0) : [1_000, 10_000, 50_000];
}

const percentile = (sorted: number[], p: number): number =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 1000) / 1000;
/** Idle time of both servers before their settled RSS is read, in ms (`BENCH_SETTLE_MS`). */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 35_000);
const ratio = (a: number, b: number): number => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);

/** VmRSS and VmHWM of a process, in MiB. */
async function memoryMb(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const field = (name: string) => Math.round(Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 102.4) / 10;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** A search endpoint and how to call it. */
interface Target {
  url: string;
  headers: Record<string, string>;
  body(query: string): string;
}

async function searchOnce(target: Target, query: string): Promise<number> {
  const started = performance.now();
  const response = await request(target.url, { method: 'POST', headers: target.headers, body: target.body(query) });
  await response.body.json();
  if (response.statusCode !== 200) throw new Error(`search answered ${response.statusCode}`);
  return performance.now() - started;
}

/** Searches per second with `concurrency` requests in flight, over `list`. */
async function throughput(target: Target, list: string[], concurrency = 16): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < list.length) await searchOnce(target, list[next++] as string);
    }),
  );
  return list.length / ((performance.now() - started) / 1000);
}

/** Polls the search endpoint until it answers 200 (the index is ready). */
async function waitReady(target: Target): Promise<void> {
  for (;;) {
    const response = await request(target.url, { method: 'POST', headers: target.headers, body: target.body('ready') });
    await response.body.dump();
    if (response.statusCode === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function orgTarget(child: ServeChild): Target {
  return {
    url: `${child.url}/api/org/knowledge/search`,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: (query) => JSON.stringify({ query, limit: 5 }),
  };
}

/** org serve: spawn → listening → first answered search. */
async function startOrg(home: string): Promise<{ child: ServeChild; listeningMs: number; readyMs: number }> {
  const started = performance.now();
  const child = await startServe({ home, env: { ORG_ADMIN_TOKEN: ADMIN, ORG_RATE_LIMIT: '100000000' }, args: ['--no-demo'] });
  const listeningMs = performance.now() - started;
  await waitReady(orgTarget(child));
  return { child, listeningMs: Math.round(listeningMs), readyMs: Math.round(performance.now() - started) };
}

/** The bare baseline: spawn → listening (its index is built before it listens). */
async function startBare(skillsDir: string): Promise<{ process: ChildProcess; target: Target; readyMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BARE_SERVER, skillsDir, 'default'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare server exited (${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^bare: listening on (\S+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
  });
  const target: Target = {
    url: `${url}/search`,
    headers: { 'content-type': 'application/json' },
    body: (query) => JSON.stringify({ query, limit: 5 }),
  };
  return { process: child, target, readyMs: Math.round(performance.now() - started) };
}

/** Runs the measurements for `n` skills; returns flat figures. */
export async function benchSearchHttp(n: number): Promise<Record<string, number>> {
  ensureBuilt();
  const home = await mkdtemp(join(tmpdir(), 'org-bench-http-'));
  const skillsDir = join(home, 'skills');
  const figures: Record<string, number> = {};
  const put = (name: string, value: number) => {
    figures[`search-http.${n}.${name}`] = value;
  };
  try {
    await mkdir(skillsDir, { recursive: true });
    const generated = generate(n);
    for (let i = 0; i < generated.length; i += 512) {
      await Promise.all(
        generated.slice(i, i + 512).map((skill) => writeFile(join(skillsDir, `${skill.slug}.md`), serializeSkill(skill.frontmatter, skill.body))),
      );
    }
    const cold = await startOrg(home);
    // SIGTERM → exit: the graceful stop (the crash test checks its outcome, this its time).
    const stopping = performance.now();
    const stopped = await cold.child.stop('SIGTERM');
    put('org.sigterm_to_exit_ms', Math.round(performance.now() - stopping));
    if (stopped.code !== 0) throw new Error(`org serve exited with ${JSON.stringify(stopped)} on SIGTERM`);
    put('org.cold_listening_ms', cold.listeningMs);
    put('org.cold_ready_ms', cold.readyMs);
    put('org.cold_index_ms', cold.readyMs - cold.listeningMs);
    const warm = await startOrg(home);
    put('org.warm_listening_ms', warm.listeningMs);
    put('org.warm_ready_ms', warm.readyMs);
    put('org.warm_index_ms', warm.readyMs - warm.listeningMs);
    const bare = await startBare(skillsDir);
    put('bare.ready_ms', bare.readyMs);
    try {
      const org = orgTarget(warm.child);
      const list = queries(600);
      for (const query of list.slice(0, 60)) {
        await searchOnce(org, query);
        await searchOnce(bare.target, query);
      }
      const times = { org: [] as number[], bare: [] as number[] };
      for (const [i, query] of list.entries()) {
        // Alternate which server goes first so neither always meets a cold cache.
        if (i % 2 === 0) {
          times.org.push(await searchOnce(org, query));
          times.bare.push(await searchOnce(bare.target, query));
        } else {
          times.bare.push(await searchOnce(bare.target, query));
          times.org.push(await searchOnce(org, query));
        }
      }
      // Throughput: both servers in two alternating rounds, so drift in machine load hits both.
      const qps = { org: 0, bare: 0 };
      // RSS right after each server's own last round (busy: the garbage of its searches not
      // yet collected). Read both at one moment instead, and the server that finished first
      // would have had the other's round to collect its garbage in.
      const busy = { org: { rss: 0, hwm: 0 }, bare: { rss: 0, hwm: 0 } };
      const pids = { org: warm.child.process.pid ?? 0, bare: bare.process.pid ?? 0 };
      for (const round of [0, 1]) {
        const slice = list.slice(round * 300, round * 300 + 300);
        const order = round === 0 ? (['org', 'bare'] as const) : (['bare', 'org'] as const);
        for (const name of order) {
          qps[name] += (await throughput(name === 'org' ? org : bare.target, [...slice, ...slice, ...slice])) / 2;
          if (round === 1) busy[name] = await memoryMb(pids[name]);
        }
      }
      times.org.sort((a, b) => a - b);
      times.bare.sort((a, b) => a - b);
      // Settled: both idle for the same time, long enough for V8's memory reducer (it runs
      // a full collection some 20 s after allocation stops) to return the searches' garbage.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const orgMemory = await memoryMb(pids.org);
      const bareMemory = await memoryMb(pids.bare);
      put('org.http_p50_ms', percentile(times.org, 0.5));
      put('org.http_p99_ms', percentile(times.org, 0.99));
      put('bare.http_p50_ms', percentile(times.bare, 0.5));
      put('bare.http_p99_ms', percentile(times.bare, 0.99));
      put('org.rss_mb', orgMemory.rss);
      put('org.rss_busy_mb', busy.org.rss);
      put('org.rss_hwm_mb', orgMemory.hwm);
      put('bare.rss_mb', bareMemory.rss);
      put('bare.rss_busy_mb', busy.bare.rss);
      put('bare.rss_hwm_mb', bareMemory.hwm);
      put('org.http_searches_per_s', Math.round(qps.org));
      put('bare.http_searches_per_s', Math.round(qps.bare));
      put('ratio.http_p50', ratio(percentile(times.org, 0.5), percentile(times.bare, 0.5)));
      put('ratio.http_searches_per_s', ratio(qps.org, qps.bare));
      put('ratio.rss', ratio(orgMemory.rss, bareMemory.rss));
      put('ratio.rss_busy', ratio(busy.org.rss, busy.bare.rss));
      put('ratio.cold_ready', ratio(cold.readyMs, bare.readyMs));
    } finally {
      bare.process.kill('SIGTERM');
      await warm.child.stop('SIGTERM');
    }
    return figures;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const n of searchSizes()) {
    for (const [key, value] of Object.entries(await benchSearchHttp(n))) console.log(`${key.padEnd(48)} ${value}`);
  }
}
