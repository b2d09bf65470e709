/**
 * The skill library as a user meets it: `org serve` started as a child process on a
 * home with N generated skills — cold start (no persisted index) and warm start (with
 * it) measured to the listening line, the server's RSS, and search latency over HTTP
 * (POST /api/org/knowledge/search) next to the same queries in process.
 *
 *   npx tsx bench/search-http.ts         # 1,000 and 10,000 skills
 */
import { readFile, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { serializeSkill } from '../src/core/skills/index.js';
import { createSkillStore } from '../src/core/skills/index.js';
import { ensureBuilt, startServe } from '../test/helpers/child.js';
import { generate, queries } from './search-core.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';

const percentile = (sorted: number[], p: number): number =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 1000) / 1000;

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

async function timedStart(home: string) {
  const started = performance.now();
  const child = await startServe({ home, env: { ORG_ADMIN_TOKEN: ADMIN, ORG_RATE_LIMIT: '1000000' }, args: ['--no-demo'], timeoutMs: 120_000 });
  return { child, ms: Math.round(performance.now() - started) };
}

/** Runs the measurements for `n` skills; returns flat figures. */
export async function benchSearchHttp(n: number): Promise<Record<string, number>> {
  ensureBuilt();
  const home = await mkdtemp(join(tmpdir(), 'org-bench-http-'));
  try {
    await mkdir(join(home, 'skills'), { recursive: true });
    for (const skill of generate(n)) await writeFile(join(home, 'skills', `${skill.slug}.md`), serializeSkill(skill.frontmatter, skill.body));
    const cold = await timedStart(home);
    // SIGTERM → exit: the graceful stop (the crash test checks its outcome, this its time).
    const stopping = performance.now();
    const stopped = await cold.child.stop('SIGTERM');
    const sigtermMs = Math.round(performance.now() - stopping);
    if (stopped.code !== 0) throw new Error(`org serve exited with ${JSON.stringify(stopped)} on SIGTERM`);
    const warm = await timedStart(home);
    const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    try {
      const created = await request(`${warm.child.url}/api/org/structures`, { method: 'POST', headers, body: JSON.stringify({ name: 'Bench', template: 'blank' }) });
      const structureId = ((await created.body.json()) as { id: string }).id;
      const list = queries(400);
      const http: number[] = [];
      for (const query of list) {
        const started = performance.now();
        const response = await request(`${warm.child.url}/api/org/knowledge/search`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ structure_id: structureId, query, limit: 5 }),
        });
        await response.body.json();
        if (response.statusCode !== 200) throw new Error(`search answered ${response.statusCode}`);
        http.push(performance.now() - started);
      }
      const rss = await rssMb(warm.child.process.pid ?? 0);
      // The same queries in process, on a store over the same folder (warm).
      const store = await createSkillStore({ root: join(home, 'skills'), stateDir: join(tmpdir(), `org-bench-state-${process.pid}`) });
      const local: number[] = [];
      for (const query of list) {
        const started = performance.now();
        store.search(query, { limit: 5 });
        local.push(performance.now() - started);
      }
      await store.close();
      http.sort((a, b) => a - b);
      local.sort((a, b) => a - b);
      return {
        [`search-http.${n}.cold_start_to_listening_ms`]: cold.ms,
        [`search-http.${n}.warm_start_to_listening_ms`]: warm.ms,
        [`search-http.${n}.sigterm_to_exit_ms`]: sigtermMs,
        [`search-http.${n}.server_rss_mb`]: rss,
        [`search-http.${n}.http_p50_ms`]: percentile(http, 0.5),
        [`search-http.${n}.http_p99_ms`]: percentile(http, 0.99),
        [`search-http.${n}.in_process_p50_ms`]: percentile(local, 0.5),
        [`search-http.${n}.in_process_p99_ms`]: percentile(local, 0.99),
      };
    } finally {
      await warm.child.stop('SIGTERM');
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figures: Record<string, number> = {};
  for (const n of [1_000, 10_000]) Object.assign(figures, await benchSearchHttp(n));
  for (const [key, value] of Object.entries(figures)) console.log(`${key.padEnd(48)} ${value}`);
}
