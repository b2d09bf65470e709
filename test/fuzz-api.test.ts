/**
 * The API fuzzer (issue 10, "Done when"): requests generated from the OpenAPI document
 * for every operation (path parameters, query strings, headers, bodies and content
 * types, valid ones built from the route schemas and real ids, hostile ones, huge and
 * odd ones), sent with `inject` as owner, viewer, node key, administrator, a bad token
 * and no token. No answer may be a 5xx, and every 4xx must be problem+json of the
 * contract's shape that leaks no stack or path. (`/mcp` answers JSON-RPC errors, the MCP
 * transport's own format: it must only never be a 5xx.)
 *
 * ORG_FUZZ_RUNS sets the number of requests (default 5,000), ORG_FUZZ_SEED replays a run;
 * failures are collected and reported together, each with a request that reproduces it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/child.js';
import { inviteTokenFor } from './helpers/outbox.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { operationsOf, requestsFor, type FuzzRequest, type Operation, type ValuePool } from './helpers/fuzz.js';

const RUNS = Number(process.env.ORG_FUZZ_RUNS ?? 5000);
const SEED = process.env.ORG_FUZZ_SEED ? Number(process.env.ORG_FUZZ_SEED) : (Date.now() ^ (process.pid << 10)) | 0;
const SECRET = 'fuzz-inbound-secret-0123456789';
const UI_BUILT = existsSync(join(REPO_ROOT, 'dist', 'web', 'index.html'));
const WEB_ROUTES = new Set(['/', '/index.html', '/favicon.svg', '/assets/{*}']);
const LEAK = /\bat \S+:\d+|node_modules|\/src\/|\.ts\b|\/tmp\/|\bstack\b/;

/**
 * The parts of a request's URL (path segments, query names and values, decoded) that look
 * like a leak themselves: a problem that quotes them back (`structure_id "x.ts" is not a
 * UUID`) is repeating the caller's input, not leaking the server's.
 */
function leakyInput(url: string): string[] {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text.replace(/\+/g, ' '));
    } catch {
      return text;
    }
  };
  const [path = '', query = ''] = url.split('?', 2);
  const pieces = [...path.split('/'), ...query.split(/[&=]/)].map(decode);
  return pieces.filter((piece) => LEAK.test(piece));
}

/** `body` without the request's own leak-looking input (as it appears inside JSON strings). */
function withoutEcho(body: string, url: string): string {
  let rest = body;
  for (const piece of leakyInput(url)) {
    rest = rest.split(JSON.stringify(piece).slice(1, -1)).join('').split(piece).join('');
  }
  return rest;
}

interface Failure {
  what: string;
  request: FuzzRequest;
  status: number;
  body: string;
}

describe(`API fuzzer (${RUNS} requests, seed ${SEED}; replay with ORG_FUZZ_SEED=${SEED})`, () => {
  let t: TestInstance;
  let operations: Operation[];
  let pool: ValuePool;
  let tokens: (string | undefined)[];

  beforeAll(async () => {
    t = await startInstance({ config: { rateLimit: 10_000_000, inboundSecret: SECRET, syncTimeoutMs: 60_000 } });
    const owner = await t.createUser('owner@example.com');
    const viewer = await t.createUser('viewer@example.com');
    const stranger = await t.createUser('stranger@example.com');
    const structure = await t.createStructure(owner.token, 'exec-team', 'Fuzzed');
    const other = await t.createStructure(stranger.token, 'blank', 'Other');
    await t.app.members.set(structure.id, viewer.id, 'viewer');
    const node = structure.agents[1]!;
    const key = await t.app.keys.mint({ structureId: structure.id, nodeId: node.id, roleId: node.role_id, label: 'fuzz' });
    const run = await t.app.chat.send({ structureId: structure.id, roleId: node.role_id, message: 'hello' });
    await run.done;
    await t.app.skills.upsert({
      slug: 'chase-invoices',
      frontmatter: { type: 'skill', name: 'Chase invoices', category: 'finance', difficulty: 'low', tags: ['invoice'], status: 'complete', summary: 'Collect money owed.' },
      body: '## [one] Step 1: Check\n\nLook it up.\n',
    });
    await t.app.chat.shelfOf(structure.id, node.id).write('report.md', '# Report\n', 'text/markdown');
    const invite = await t.app.invites.share({ structureId: structure.id, email: 'invitee@example.com', role: 'operator', invitedBy: 'owner@example.com' });
    const inviteToken = await inviteTokenFor(t.home, 'invitee@example.com');
    pool = {
      structure_id: [structure.id, structure.id, other.id],
      role_id: structure.agents.map((agent) => agent.role_id),
      parent_id: structure.agents.map((agent) => agent.id),
      run_id: [run.id],
      slug: ['chase-invoices', 'no-such-skill'],
      key_id: [key.id],
      name: ['report.md', 'missing.txt', 'constructor', '__proto__'],
      user_id: [owner.id, viewer.id],
      invite_id: [invite.id],
      webhook_id: [invite.id],
      template: ['blank', 'exec-team', 'personal', 'no-such-template'],
      email: ['someone@example.com', 'owner@example.com', 'not-an-email'],
      role: ['viewer', 'operator', 'owner', 'admin'],
      status: ['complete', 'draft', 'complete,draft,deprecated', 'nope'],
      message: ['hello', '/chase-invoices please', 'chase overdue invoices'],
      query: ['overdue invoices', 'x'],
      type: ['skill'],
      tags: [['invoice', 'overdue'], []],
      difficulty: ['low', 'medium', 'high'],
      learned_by: ['user', 'agent'],
      learned_at: ['2026-01-01T00:00:00.000Z'],
      tool_url: ['http://127.0.0.1:9/tool'],
      token: [inviteToken],
      address: [`${node.role_id}.${structure.id}@localhost`, `${node.role_id}.${other.id}@localhost`, 'nobody@localhost'],
      '*': ['index.js', '../../package.json', 'x'.repeat(300)],
    };
    // The first four may act; the rest are refused or lack rights.
    tokens = [`Bearer ${owner.token}`, `Bearer ${ADMIN_TOKEN}`, `Bearer ${owner.token}`, `Bearer ${key.token}`, `Bearer ${viewer.token}`, 'Bearer org_u_nope', 'Basic Zm9vOmJhcg==', `Bearer ${'x'.repeat(5000)}`, undefined];
    const doc = (await t.server.inject({ method: 'GET', url: '/api/org/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
    operations = operationsOf(doc);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  /** What is wrong with an answer, or undefined. */
  function judge(request: FuzzRequest, status: number, contentType: string, body: string): string | undefined {
    // Without `npm run build` the web UI answers 503 "not built"; that is the build, not the server.
    if (status === 503 && !UI_BUILT && WEB_ROUTES.has(request.operation)) return undefined;
    if (status >= 500) return `${status} answer`;
    if (status < 400 || request.url.startsWith('/mcp')) return undefined;
    if (!/^application\/problem\+json/.test(contentType)) return `${status} with content type ${contentType || 'none'}`;
    let problem: Record<string, unknown>;
    try {
      problem = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return `${status} with a body that is not JSON`;
    }
    for (const member of ['type', 'title', 'detail', 'code']) if (typeof problem[member] !== 'string') return `${status} problem without ${member}`;
    if (problem.status !== status) return `${status} problem whose status is ${String(problem.status)}`;
    if (LEAK.test(withoutEcho(body, request.url))) return `${status} problem leaking a stack or path`;
    return undefined;
  }

  it('covers every operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(35);
  });

  it('no 5xx, and problem+json on every 4xx', { timeout: 30 * 60_000 }, async () => {
    const arbitrary = fc.constantFrom(...operations).chain((op) => requestsFor(op, pool, { tokens, actors: 4, inboundSecret: SECRET }));
    const failures: Failure[] = [];
    const statuses = new Map<number, number>();
    const byOperation = new Map<string, Map<number, number>>();
    let sent = 0;
    const batch = 250;
    for (let offset = 0; offset < RUNS; offset += batch) {
      for (const request of fc.sample(arbitrary, { numRuns: Math.min(batch, RUNS - offset), seed: SEED + offset })) {
        let response;
        try {
          response = await t.server.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, ...(request.payload === undefined ? {} : { payload: request.payload }) });
        } catch (error) {
          // The in-process client refused to build the request (it never reached the server).
          if (error instanceof TypeError) continue;
          throw error;
        }
        sent++;
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const label = `${request.method} ${request.operation}`;
        const counts = byOperation.get(label) ?? new Map<number, number>();
        counts.set(response.statusCode, (counts.get(response.statusCode) ?? 0) + 1);
        byOperation.set(label, counts);
        const what = judge(request, response.statusCode, String(response.headers['content-type'] ?? ''), response.body);
        if (what) failures.push({ what, request: { ...request, payload: request.payload === undefined ? undefined : String(request.payload).slice(0, 300) } as FuzzRequest, status: response.statusCode, body: response.body.slice(0, 300) });
      }
    }
    // One example per kind of failure and operation, with a count.
    const distinct = new Map<string, Failure & { count: number }>();
    for (const failure of failures) {
      const key = `${failure.what} · ${failure.request.method} ${failure.request.operation}`;
      const seen = distinct.get(key);
      if (seen) seen.count++;
      else distinct.set(key, { ...failure, count: 1 });
    }
    if (process.env.ORG_FUZZ_VERBOSE || failures.length > 0) {
      for (const [key, failure] of distinct) {
        console.log(`  ${failure.count} × ${key}\n      e.g. ${failure.request.url.slice(0, 160)} ${JSON.stringify(failure.request.payload ?? '').slice(0, 120)} → ${failure.body.slice(0, 160)}`);
      }
      console.log(`fuzzed ${sent} requests (seed ${SEED}); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; ${failures.length} failures, ${distinct.size} distinct`);
      if (process.env.ORG_FUZZ_VERBOSE) {
        for (const [label, counts] of [...byOperation].sort()) console.log(`  ${label}: ${JSON.stringify(Object.fromEntries(counts))}`);
      }
    }
    expect([...distinct.keys()], `failures (seed ${SEED})`).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(RUNS * 0.95);
  });
});
