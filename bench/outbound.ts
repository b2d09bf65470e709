/**
 * Memory of what org reads from outside, measured on an `org serve` process from outside
 * (its resident set, sampled from /proc every 10 ms; Linux only):
 *
 * - a skill's `tool_url` answering 150 MB: the peak RSS growth of org's turn, against the
 *   baseline of the same run, a bare Node process reading the same answer whole with undici
 *   (`body.text()`, what org did before the read was bounded);
 * - 10 replays at once of a stored run of about 40 MB (a container's flood of text events):
 *   the peak RSS growth of org, against a bare process reading the run file whole 10 times at
 *   once (what every replay did before it streamed).
 *
 * `ORG_BENCH_TOOL_MB` and `ORG_BENCH_FLOOD` change the sizes.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, startServe } from '../test/helpers/child.js';
import { envNumber, spawnAgent } from './support.js';

const ADMIN = 'bench-outbound-admin-token-0123456789';
const MB = 1024 * 1024;

/** Resident set of a process in bytes. */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Runs `work` while sampling the RSS of `pid`; resolves with the peak growth over the RSS before it. */
async function peakGrowth(pid: number, work: () => Promise<unknown>): Promise<number> {
  const before = rss(pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rss(pid));
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(0, Math.max(peak, rss(pid)) - before);
}

/** Runs a script in a bare Node process; resolves with the peak RSS growth it reports. */
function bare(script: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`baseline exited with ${code}`))));
  });
}

/** The peak-growth measure inside a bare process (VmHWM − VmRSS at start). */
const MEASURE = `
import { readFileSync } from 'node:fs';
const kb = (name) => Number(new RegExp(name + ':\\\\s+(\\\\d+) kB').exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const start = kb('VmRSS');
const done = () => process.stdout.write(String(Math.max(0, kb('VmHWM') - start)));
`;

/** The figures. */
export async function benchOutbound(): Promise<Record<string, number> | { skipped: string }> {
  if (process.platform !== 'linux') return { skipped: 'reads /proc (Linux only)' };
  ensureBuilt();
  const toolMb = envNumber('ORG_BENCH_TOOL_MB', 150);
  const flood = envNumber('ORG_BENCH_FLOOD', 400_000);
  // A tool that answers `toolMb` MB of text.
  const chunk = Buffer.alloc(MB, 'a');
  const tool = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/plain' });
    let sent = 0;
    const pump = () => {
      while (sent < toolMb && !response.destroyed) {
        sent++;
        if (!response.write(chunk)) return;
      }
      if (sent >= toolMb) response.end();
    };
    response.on('drain', pump);
    pump();
  });
  await new Promise<void>((resolve) => tool.listen(0, '127.0.0.1', resolve));
  const toolUrl = `http://127.0.0.1:${(tool.address() as AddressInfo).port}/answer`;
  const agent = await spawnAgent();
  const home = await mkdtemp(join(tmpdir(), 'org-bench-outbound-'));
  const serve = await startServe({ home, env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), ORG_RATE_LIMIT: '1000000000', ORG_LOG_LEVEL: 'silent' }, args: ['--no-demo'] });
  const pid = serve.process.pid!;
  const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const call = async (path: string, body?: unknown) =>
    (await fetch(`${serve.url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })).json() as Promise<Record<string, unknown>>;
  try {
    await serve.ready;
    const structure = (await call('/api/org/structures', { name: 'Bench', template: 'exec-team' })) as { id: string };
    const frontmatter = { type: 'skill', name: 'Big answer', category: 'general', difficulty: 'low', tags: [], status: 'complete', summary: 'Calls a tool with a big answer.', learned_by: 'user', tool_url: toolUrl };
    await call('/api/org/knowledge/skills', { structure_id: structure.id, slug: 'big-answer', frontmatter, body: '## [s1] Step 1: Ask\nAsk it.\n' });
    const turn = () => call('/api/org/chat/message/sync', { structure_id: structure.id, role_id: 'exec-cfo', message: '/big-answer' });
    // The first turn also loads the HTTP client and warms the code: measured is the second.
    await turn();
    const toolOrg = await peakGrowth(pid, turn);
    const toolBare = await bare(`${MEASURE} const { request } = await import('undici'); const r = await request(process.argv[1]); const text = await r.body.text(); if (!text.length) process.exit(1); done();`, [toolUrl]);

    // A long stored run: a container's flood of text events.
    await fetch(`${serve.url}/api/org/structures/${structure.id}/agents/exec-cto`, { method: 'PATCH', headers, body: JSON.stringify({ container_url: agent.url }) });
    const flooded = (await call('/api/org/chat/message/sync', { structure_id: structure.id, role_id: 'exec-cto', message: `flood ${flood}` })) as { run_id: string };
    const runFile = join(home, '.org', 'runs', flooded.run_id.slice(0, 2), `${flooded.run_id}.sse`);
    const fileBytes = readFileSync(runFile).length;
    const replay = async () => {
      const response = await fetch(`${serve.url}/api/org/chat/runs/${flooded.run_id}/events`, { headers });
      for await (const _part of response.body!) {
        // read and drop, at the client's pace
      }
    };
    const replayOrg = await peakGrowth(pid, () => Promise.all(Array.from({ length: 10 }, replay)));
    const replayBare = await bare(
      `${MEASURE} const { readFile } = await import('node:fs/promises'); await Promise.all(Array.from({ length: 10 }, async () => { const text = await readFile(process.argv[1], 'utf8'); return text.split('\\n\\n').length; })); done();`,
      [runFile],
    );
    return {
      'outbound.tool_answer_mb': toolMb,
      'outbound.tool_answer.org_rss_growth_mb': toolOrg / MB,
      'outbound.tool_answer.bare_unbounded_read_rss_growth_mb': toolBare / MB,
      'outbound.replay.run_file_mb': fileBytes / MB,
      'outbound.replay.x10.org_rss_growth_mb': replayOrg / MB,
      'outbound.replay.x10.bare_whole_file_reads_rss_growth_mb': replayBare / MB,
    };
  } finally {
    await serve.stop('SIGTERM');
    await agent.close();
    tool.close();
    await rm(home, { recursive: true, force: true });
  }
}
