/**
 * The hardening prober (issue 28, "left over"): measures, on real listening servers, what
 * the reliability harness found — fuzzed requests answered 5xx or with a 4xx that is not
 * problem details, malformed HTTP answered other than with a problem, temp files left in
 * a home after `org serve` is killed (SIGKILL) in the middle of writes, the RSS a server
 * keeps after many streams, and how many slow connections one address can hold. The test
 * (`test/hardening.test.ts`) asserts the deterministic figures on bounded runs; the bench
 * (`npm run bench -- hardening`) prints them all on larger ones.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { Agent, request } from 'undici';
import { TEMP_NAME } from '../../src/core/storage/temps.js';
import { startServe, type ServeChild } from './child.js';
import { operationsOf, requestsFor } from './fuzz.js';
import { inviteTokenFor } from './outbox.js';
import { ADMIN_TOKEN } from './instance.js';

/** What a fuzz run found. */
export interface FuzzFigures {
  sent: number;
  /** Answers 500 or above. */
  serverErrors: number;
  /** 4xx answers of the API that are not problem+json (`/mcp` answers JSON-RPC errors: not counted). */
  nonProblem4xx: number;
  /** Requests that got no complete answer within {@link ANSWER_MS}. */
  hung: number;
  /** One example per kind of failure. */
  examples: string[];
}

/** How long the prober waits for an answer before it counts the request as hung. */
const ANSWER_MS = 10_000;

const INBOUND_SECRET = 'prober-inbound-secret-0123456789';

/** The inbound secret a fuzzed instance must be configured with. */
export const PROBER_INBOUND_SECRET = INBOUND_SECRET;

/** A listening server to probe, and its home (where its outbox is). */
export interface ProbeTarget {
  url: string;
  home: string;
}

/** One JSON call to `target` with a bearer token; throws on anything but 2xx. */
async function api<T>(target: ProbeTarget, method: string, path: string, token: string | undefined, body?: unknown): Promise<T> {
  const answer = await request(`${target.url}${path}`, {
    method: method as 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await answer.body.text();
  if (answer.statusCode >= 300) throw new Error(`${method} ${path} answered ${answer.statusCode}: ${text.slice(0, 200)}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * Sends `runs` requests generated from the OpenAPI document (well-formed ones with real
 * ids and several roles' tokens, and hostile ones) to a listening server over HTTP; the
 * server must run with `ORG_ADMIN_TOKEN` = the test administrator token and
 * {@link PROBER_INBOUND_SECRET}. Everything it needs is made through the API.
 */
export async function fuzzOverHttp(target: ProbeTarget, runs: number, seed: number): Promise<FuzzFigures> {
  const user = async (email: string) => {
    const created = await api<{ token: string; user: { id: string } }>(target, 'POST', '/api/org/users', ADMIN_TOKEN, { email });
    return { token: created.token, id: created.user.id };
  };
  const owner = await user(`fuzz-owner-${seed}@example.com`);
  const viewer = await user(`fuzz-viewer-${seed}@example.com`);
  const structure = await api<{ id: string; agents: { id: string; role_id: string }[] }>(target, 'POST', '/api/org/structures', owner.token, { name: 'Fuzzed', template: 'exec-team' });
  const node = structure.agents[1]!;
  await api(target, 'POST', `/api/org/structures/${structure.id}/share`, owner.token, { email: `fuzz-viewer-${seed}@example.com`, role: 'viewer' });
  await api(target, 'POST', '/api/org/invites/accept', undefined, { token: await inviteTokenFor(target.home, `fuzz-viewer-${seed}@example.com`) });
  const key = await api<{ id: string; token: string }>(target, 'POST', `/api/org/structures/${structure.id}/agents/${node.role_id}/mcp-key`, owner.token, { label: 'fuzz' });
  const run = await api<{ run_id: string }>(target, 'POST', '/api/org/chat/message/sync', owner.token, {
    structure_id: structure.id,
    role_id: node.role_id,
    message: 'hello',
    attachments: [{ name: 'report.md', content_base64: Buffer.from('# Report\n').toString('base64'), content_type: 'text/markdown' }],
  });
  const invite = await api<{ invite: { id: string } }>(target, 'POST', `/api/org/structures/${structure.id}/share`, owner.token, { email: `fuzz-invitee-${seed}@example.com`, role: 'operator' });
  const pool = {
    structure_id: [structure.id],
    role_id: structure.agents.map((agent) => agent.role_id),
    parent_id: structure.agents.map((agent) => agent.id),
    run_id: [run.run_id],
    slug: ['chase-overdue-invoices', 'no-such-skill'],
    key_id: [key.id],
    name: ['report.md', 'missing.txt', '__proto__'],
    user_id: [owner.id, viewer.id],
    invite_id: [invite.invite.id],
    template: ['blank', 'exec-team', 'nope'],
    email: ['someone@example.com', 'not-an-email'],
    role: ['viewer', 'operator', 'owner', 'admin'],
    message: ['hello', 'chase overdue invoices'],
    query: ['overdue invoices', 'x'],
    type: ['skill'],
    token: [await inviteTokenFor(target.home, `fuzz-invitee-${seed}@example.com`)],
    address: [`${node.role_id}.${structure.id}@localhost`, 'nobody@localhost'],
  };
  const tokens = [`Bearer ${owner.token}`, `Bearer ${ADMIN_TOKEN}`, `Bearer ${key.token}`, `Bearer ${viewer.token}`, 'Bearer org_u_nope', `Bearer ${'x'.repeat(5000)}`, undefined];
  const doc = await api<{ paths: Record<string, Record<string, unknown>> }>(target, 'GET', '/api/org/openapi.json', undefined);
  const operations = operationsOf(doc);
  const arbitrary = fc.constantFrom(...operations).chain((op) => requestsFor(op, pool, { tokens, actors: 3, inboundSecret: INBOUND_SECRET }));
  const figures: FuzzFigures = { sent: 0, serverErrors: 0, nonProblem4xx: 0, hung: 0, examples: [] };
  const seen = new Set<string>();
  const note = (kind: string, line: string) => {
    if (process.env.ORG_PROBER_VERBOSE) console.log(line);
    if (seen.has(kind)) return;
    seen.add(kind);
    figures.examples.push(line);
  };
  const dispatcher = new Agent({ connections: 8, pipelining: 1, headersTimeout: ANSWER_MS, bodyTimeout: ANSWER_MS });
  try {
    const requests = fc.sample(arbitrary, { numRuns: runs, seed });
    let next = 0;
    const worker = async () => {
      while (next < requests.length) {
        const fuzzed = requests[next++]!;
        let answer;
        try {
          answer = await request(`${target.url}${fuzzed.url}`, {
            method: fuzzed.method as 'GET',
            // undici handles `Expect` itself (and stalls on values it does not know): the server's handling
            // of it is fuzzed by test/fuzz-api.test.ts, in process.
            headers: Object.fromEntries(Object.entries(fuzzed.headers).filter(([name]) => name.toLowerCase() !== 'expect')),
            dispatcher,
            // A connection of its own: what one odd request does to its connection is that request's alone.
            reset: true,
            signal: AbortSignal.timeout(ANSWER_MS),
            ...(fuzzed.payload === undefined ? {} : { body: fuzzed.payload }),
          });
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (code === 'UND_ERR_HEADERS_TIMEOUT' || (error as { name?: string }).name === 'TimeoutError') {
            figures.hung++;
            note(`hung ${fuzzed.method} ${fuzzed.operation}`, `no answer: ${fuzzed.method} ${fuzzed.url.slice(0, 120)} ${JSON.stringify(fuzzed.headers).slice(0, 200)}`);
          }
          // Otherwise the client refused to send it (an invalid header or URL): it never reached the server.
          continue;
        }
        const body = await answer.body.text().catch((error: unknown) => {
          if ((error as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT' || (error as { name?: string }).name === 'TimeoutError') {
            figures.hung++;
            note(`hung body ${fuzzed.method} ${fuzzed.operation}`, `no end: ${fuzzed.method} ${fuzzed.url.slice(0, 120)} ${JSON.stringify(fuzzed.headers).slice(0, 200)}`);
          }
          return '';
        });
        figures.sent++;
        const type = String(answer.headers['content-type'] ?? '');
        if (answer.statusCode >= 500) {
          figures.serverErrors++;
          note(`5xx ${fuzzed.method} ${fuzzed.operation}`, `${answer.statusCode} ${fuzzed.method} ${fuzzed.url.slice(0, 120)} → ${body.slice(0, 160)}`);
        } else if (answer.statusCode >= 400 && !fuzzed.url.startsWith('/mcp') && !/^application\/problem\+json/.test(type)) {
          figures.nonProblem4xx++;
          note(`4xx ${fuzzed.method} ${fuzzed.operation}`, `${answer.statusCode} (${type || 'no type'}) ${fuzzed.method} ${fuzzed.url.slice(0, 120)} → ${body.slice(0, 160)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Number(process.env.ORG_PROBER_WORKERS ?? 8) }, worker));
  } finally {
    await dispatcher.close();
  }
  return figures;
}

/** Malformed HTTP/1.1, each sent on a connection of its own. */
const MALFORMED = [
  'GARBAGE\r\n\r\n',
  'GET /api/org/health HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET /api/org/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
  `GET /api/org/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  'POST /api/org/structures HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
  'POST /api/org/structures HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}',
  'POST /api/org/structures HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
  'GET /api/org/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
  'GET /%ZZ HTTP/1.1\r\nHost: x\r\n\r\n',
  `GET /api/org/structures/${'a'.repeat(3000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  'GET \u0000 HTTP/1.1\r\n\r\n',
];

/** Sends malformed requests; counts answers that are not a 4xx problem (a closed connection without answer counts as none). */
export async function probeProtocol(url: string): Promise<{ sent: number; nonProblem: number; examples: string[] }> {
  const { hostname, port } = new URL(url);
  let nonProblem = 0;
  const examples: string[] = [];
  for (const raw of MALFORMED) {
    const received = await new Promise<string>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port) });
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.once('close', () => resolve(text));
      socket.once('connect', () => socket.end(raw));
    });
    const problem = /^HTTP\/1\.1 4\d\d /.test(received) && /content-type: application\/problem\+json/i.test(received);
    if (!problem && received !== '') {
      nonProblem++;
      examples.push(`${JSON.stringify(raw.slice(0, 60))} → ${JSON.stringify(received.slice(0, 120))}`);
    }
  }
  return { sent: MALFORMED.length, nonProblem, examples };
}

/** Temp files of atomic writes found under a home (any `<name>.<digits>` below `.org/`, `<slug>.md.<digits>` in `skills/`). */
export async function strayTemps(home: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, isTemp: (name: string) => boolean) => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path, isTemp);
      else if (isTemp(entry.name)) found.push(relative(home, path));
    }
  };
  await walk(join(home, '.org'), (name) => TEMP_NAME.test(name) && !/\.log\.\d+$/.test(name));
  await walk(join(home, 'skills'), (name) => /\.md\.\d{1,10}$/.test(name));
  return found;
}

/**
 * Kills `org serve` with SIGKILL `cycles` times, each after `writesBeforeKill` acknowledged
 * writes with more in flight (structures, skills, chat turns with attachments, users),
 * starts it once more and lists the temp files left once it is ready.
 */
export async function killCycles(cycles: number, writesBeforeKill = 12): Promise<{ cycles: number; writes: number; stray: string[] }> {
  const home = await mkdtemp(join(tmpdir(), 'org-prober-kill-'));
  const env = { ORG_ADMIN_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: join(home, 'config'), ORG_RATE_LIMIT: '1000000' };
  let writes = 0;
  try {
    for (let cycle = 0; cycle < cycles; cycle++) {
      const child = await startServe({ home, env, args: ['--no-demo'] });
      await child.ready;
      await writeUntilKilled(child, cycle, writesBeforeKill, () => writes++);
    }
    const last = await startServe({ home, env, args: ['--no-demo'] });
    await last.ready;
    const stray = await strayTemps(home);
    await last.stop('SIGTERM');
    return { cycles, writes, stray };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** Writes through `child`'s API from 6 clients; SIGKILLs it after `count` acknowledged writes. */
async function writeUntilKilled(child: ServeChild, cycle: number, count: number, acknowledged: () => void): Promise<void> {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const answer = await request(`${child.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await answer.body.text();
    return { status: answer.statusCode, body: text };
  };
  const created = await post('/api/org/structures', { name: `Kill ${cycle}`, template: 'exec-team' });
  const structureId = (JSON.parse(created.body) as { id: string }).id;
  let done = 0;
  let killed = false;
  const client = async (lane: number) => {
    for (let i = 0; !killed; i++) {
      const kind = (lane + i) % 4;
      try {
        if (kind === 0) await post('/api/org/structures', { name: `S ${cycle}.${lane}.${i}`, template: 'blank' });
        else if (kind === 1) {
          const slug = `kill-${cycle}-${lane}-${i}`;
          await post('/api/org/knowledge/skills', { slug, frontmatter: { type: 'skill', name: slug, category: 'ops', difficulty: 'low', tags: ['kill'], status: 'complete', summary: 'written while killed' }, body: '## [a] Step 1: Write\n\nWrite it.\n' });
        } else if (kind === 2) {
          await post('/api/org/chat/message/sync', {
            structure_id: structureId,
            role_id: ['exec-ceo', 'exec-cfo', 'exec-cto', 'exec-coo'][lane % 4],
            message: 'chase overdue invoices',
            attachments: [{ name: `n${i}.txt`, content_base64: Buffer.from(`note ${i}`).toString('base64'), content_type: 'text/plain' }],
          });
        } else await post('/api/org/users', { email: `k${cycle}-${lane}-${i}@example.com` });
      } catch {
        return; // the server is gone
      }
      acknowledged();
      if (++done === count && !killed) {
        killed = true;
        child.process.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, (_, lane) => client(lane)));
  await child.exited;
}

/** Resident set size of a process in bytes (Linux `/proc/<pid>/status`). */
export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}
