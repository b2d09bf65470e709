/**
 * HTTP conventions against a listening server: CORS for listed browser origins (and none
 * by default), compression by Accept-Encoding of JSON and static answers (chat streams
 * never held in a compressor), ETag / If-None-Match → 304 on skills, structures,
 * histories and static files, and If-Match on skill writes (412 on a stale write).
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../src/core/config.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { expectProblem } from './helpers/problem.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { open } from './helpers/sse.js';

const ORIGIN = 'https://app.example.com';

/** A raw HTTP exchange: the body exactly as sent on the wire (no decoding). */
async function raw(url: string, options: { method?: 'GET' | 'POST' | 'OPTIONS' | 'DELETE'; headers?: Record<string, string>; body?: unknown } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const body = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, body };
}

function decode(encoding: unknown, body: Buffer): string {
  if (encoding === 'br') return brotliDecompressSync(body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(body).toString('utf8');
  return body.toString('utf8');
}

describe('configuration of CORS origins', () => {
  it('takes repeated flags over ORG_CORS_ORIGINS, and refuses what is not an origin', () => {
    expect(resolveConfig({ corsOrigin: ['https://a.example', 'http://localhost:5173'] }, { ORG_CORS_ORIGINS: 'https://b.example' }).corsOrigins).toEqual([
      'https://a.example',
      'http://localhost:5173',
    ]);
    expect(resolveConfig({}, { ORG_CORS_ORIGINS: 'https://b.example, https://c.example' }).corsOrigins).toEqual(['https://b.example', 'https://c.example']);
    expect(resolveConfig({}, {}).corsOrigins).toEqual([]);
    expect(() => resolveConfig({ corsOrigin: ['https://a.example/app'] }, {})).toThrow(/--cors-origin: "https:\/\/a.example\/app" is not an origin/);
    expect(() => resolveConfig({}, { ORG_CORS_ORIGINS: 'a.example' })).toThrow(/ORG_CORS_ORIGINS/);
  });
});

describe('CORS', () => {
  let withCors: TestInstance;
  let without: TestInstance;
  beforeAll(async () => {
    withCors = await startInstance({ listen: true, config: { corsOrigins: [ORIGIN] } });
    without = await startInstance({ listen: true });
  });
  afterAll(async () => {
    await withCors.close();
    await without.close();
  });

  const preflight = (base: string, origin: string, method = 'POST', headers = 'authorization,content-type,last-event-id') =>
    raw(`${base}/api/org/chat/message`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });

  it('answers a listed origin’s preflight with the methods and headers the API needs', async () => {
    const response = await preflight(withCors.url, ORIGIN);
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    const allowed = String(response.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
    for (const header of ['authorization', 'content-type', 'last-event-id', 'if-match', 'if-none-match', 'x-request-id']) expect(allowed).toContain(header);
    const methods = String(response.headers['access-control-allow-methods']).split(/,\s*/);
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) expect(methods).toContain(method);
    expect(response.headers['access-control-max-age']).toBe('7200');
    expect(response.headers.vary).toMatch(/origin/i);
  });

  it('lets the listed origin read answers, error answers and response headers', async () => {
    const ok = await raw(`${withCors.url}/api/org/structures`, { headers: { origin: ORIGIN, authorization: `Bearer ${'test-admin-token-0123456789abcdef'}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(String(ok.headers['access-control-expose-headers']).toLowerCase()).toContain('etag');
    expect(String(ok.headers['access-control-expose-headers']).toLowerCase()).toContain('x-org-run-id');
    const refused = await raw(`${withCors.url}/api/org/structures`, { headers: { origin: ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('gives another origin no CORS grant', async () => {
    const response = await preflight(withCors.url, 'https://evil.example');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const get = await raw(`${withCors.url}/api/org/health`, { headers: { origin: 'https://evil.example' } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows no origin by default: no CORS header, preflight 404', async () => {
    const response = await preflight(without.url, ORIGIN);
    expect(response.status).toBe(404);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const get = await raw(`${without.url}/api/org/health`, { headers: { origin: ORIGIN } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('compression and conditional GET', () => {
  let chat: ChatFixture;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  /** A runtime that says one thing, then waits for the test before completing. */
  const heldRuntime: AgentRuntime = {
    name: 'held',
    async run(turn, emit) {
      await emit({ type: 'text', content: `first words for ${turn.message}` });
      if (turn.message.startsWith('hold')) await held;
      await emit({ type: 'complete', content: { summary: 'done', artifacts: [] } });
    },
  };

  beforeAll(async () => {
    chat = await startChat({ deps: { runtime: () => heldRuntime } });
  });
  afterAll(async () => {
    release();
    await chat.close();
  });

  const auth = () => ({ authorization: `Bearer ${chat.owner.token}` });

  it('compresses the OpenAPI document by Accept-Encoding, and sends it plain without one', async () => {
    const plain = await raw(chat.url('/api/org/openapi.json'));
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gzip = await raw(chat.url('/api/org/openapi.json'), { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toMatch(/accept-encoding/i);
    expect(decode('gzip', gzip.body)).toBe(plain.body.toString('utf8'));
    const br = await raw(chat.url('/api/org/openapi.json'), { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(decode('br', br.body)).toBe(plain.body.toString('utf8'));
    expect(gzip.body.length).toBeLessThan(plain.body.length / 5);
    expect(br.body.length).toBeLessThan(plain.body.length / 5);
  });

  it('leaves small answers uncompressed', async () => {
    const health = await raw(chat.url('/api/org/health'), { headers: { 'accept-encoding': 'gzip' } });
    expect(health.body.length).toBeLessThan(1024);
    expect(health.headers['content-encoding']).toBeUndefined();
  });

  it('compresses the web bundle and answers If-None-Match on it with 304', async () => {
    const page = await raw(chat.url('/'), { headers: { 'accept-encoding': 'gzip' } });
    const html = decode(page.headers['content-encoding'], page.body);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const plain = await raw(chat.url(script!));
    const gzip = await raw(chat.url(script!), { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(decode('gzip', gzip.body)).toBe(plain.body.toString('utf8'));
    expect(gzip.body.length).toBeLessThan(plain.body.length / 2);
    const tag = String(plain.headers.etag);
    expect(tag).toMatch(/^(W\/)?"/);
    expect(gzip.headers.etag).toBe(tag);
    const again = await raw(chat.url(script!), { headers: { 'if-none-match': tag, 'accept-encoding': 'gzip' } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('sends the structure detail compressed, the same bytes again while it is unchanged, and the new detail once it changes', async () => {
    const detailUrl = chat.url(`/api/org/structures/${chat.structure.id}`);
    const root = chat.structure.agents.find((agent) => agent.parent_id === null)!;
    const addNode = async (roleId: string) => {
      const added = await raw(chat.url(`/api/org/structures/${chat.structure.id}/agents`), { method: 'POST', headers: auth(), body: { role_id: roleId, label: `Compressed ${roleId}`, parent_id: root.id } });
      expect(added.status).toBe(201);
    };
    for (let i = 0; (await raw(detailUrl, { headers: auth() })).body.length < 2048; i++) await addNode(`zip-${i}`);
    const plain = await raw(detailUrl, { headers: auth() });
    const br = await raw(detailUrl, { headers: { ...auth(), 'accept-encoding': 'br' } });
    const again = await raw(detailUrl, { headers: { ...auth(), 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers.etag).toBe(plain.headers.etag);
    expect(decode('br', br.body)).toBe(plain.body.toString('utf8'));
    expect(again.body.equals(br.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);

    await addNode('zip-after');
    const changed = await raw(detailUrl, { headers: { ...auth(), 'accept-encoding': 'br' } });
    const changedPlain = await raw(detailUrl, { headers: auth() });
    expect(changed.headers.etag).not.toBe(br.headers.etag);
    expect(decode('br', changed.body)).toBe(changedPlain.body.toString('utf8'));
    expect(decode('br', changed.body)).toContain('Compressed zip-after');
  });

  it('answers If-None-Match on structures and histories with 304 until they change', async () => {
    const detailUrl = chat.url(`/api/org/structures/${chat.structure.id}`);
    const first = await raw(detailUrl, { headers: auth() });
    expect(first.status).toBe(200);
    const tag = String(first.headers.etag);
    const same = await raw(detailUrl, { headers: { ...auth(), 'if-none-match': tag } });
    expect(same.status).toBe(304);
    expect(same.body.length).toBe(0);
    const list = await raw(chat.url('/api/org/structures'), { headers: auth() });
    expect((await raw(chat.url('/api/org/structures'), { headers: { ...auth(), 'if-none-match': String(list.headers.etag) } })).status).toBe(304);

    const historyUrl = chat.url(`/api/org/chat/history?structure_id=${chat.structure.id}&role_id=${chat.roleId}`);
    const before = await raw(historyUrl, { headers: auth() });
    const beforeTag = String(before.headers.etag);
    expect((await raw(historyUrl, { headers: { ...auth(), 'if-none-match': beforeTag } })).status).toBe(304);
    const stream = await chat.send('history changes');
    await stream.ended;
    const after = await raw(historyUrl, { headers: { ...auth(), 'if-none-match': beforeTag } });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(beforeTag);
    // A new node changes the structure, and so its tag.
    const root = chat.structure.agents.find((agent) => agent.parent_id === null)!;
    const added = await raw(chat.url(`/api/org/structures/${chat.structure.id}/agents`), { method: 'POST', headers: auth(), body: { role_id: 'exec-new', label: 'New', parent_id: root.id } });
    expect(added.status).toBe(201);
    const changed = await raw(detailUrl, { headers: { ...auth(), 'if-none-match': tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);
  });

  it('compresses a large history and never a chat stream, whose first frame arrives while the turn is held', async () => {
    const stream = await open(chat.url('/api/org/chat/message'), {
      method: 'POST',
      token: chat.owner.token,
      headers: { 'accept-encoding': 'gzip, br' },
      body: { structure_id: chat.structure.id, role_id: chat.roleId, message: 'hold on' },
    });
    expect(stream.headers['content-encoding']).toBeUndefined();
    // The first frame is readable as plain text while the runtime still holds the turn.
    await stream.until((response) => response.frames().some((frame) => frame.event?.type === 'text'));
    expect(stream.done).toBe(false);
    release();
    await stream.ended;
    expect(stream.frames().at(-1)?.event?.type).toBe('complete');

    const bulky = 'x'.repeat(4000);
    for (let i = 0; i < 3; i += 1) await (await chat.send(`bulk ${i} ${bulky}`)).ended;
    const historyUrl = chat.url(`/api/org/chat/history?structure_id=${chat.structure.id}&role_id=${chat.roleId}`);
    const plain = await raw(historyUrl, { headers: auth() });
    const gzip = await raw(historyUrl, { headers: { ...auth(), 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decode('gzip', gzip.body))).toEqual(JSON.parse(plain.body.toString('utf8')));
    expect(gzip.body.length).toBeLessThan(plain.body.length / 3);
  });
});

describe('skill versions', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structureId: string;
  const dispatcher = new Agent();
  const frontmatter = (summary: string) => ({ type: 'skill', name: 'Chase invoices', category: 'finance', difficulty: 'low', tags: ['invoice'], status: 'complete', summary });

  beforeAll(async () => {
    t = await startInstance({ listen: true });
    owner = await t.createUser('editor@example.com');
    structureId = (await t.createStructure(owner.token, 'blank')).id;
  });
  afterAll(async () => {
    await dispatcher.close();
    await t.close();
  });

  const auth = () => ({ authorization: `Bearer ${owner.token}` });
  const write = (summary: string, headers: Record<string, string> = {}) =>
    raw(`${t.url}/api/org/knowledge/skills`, {
      method: 'POST',
      headers: { ...auth(), ...headers },
      body: { structure_id: structureId, slug: 'chase-invoices', frontmatter: frontmatter(summary), body: '## [a] Step 1: Ask\nAsk.\n' },
    });

  it('gives each version a strong ETag, answers If-None-Match with 304, and refuses a stale If-Match with 412', async () => {
    const created = await write('first');
    expect(created.status).toBe(201);
    const v1 = String(created.headers.etag);
    expect(v1).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const read = await raw(`${t.url}/api/org/knowledge/skills/chase-invoices`, { headers: auth() });
    expect(read.headers.etag).toBe(v1);
    expect((await raw(`${t.url}/api/org/knowledge/skills/chase-invoices`, { headers: { ...auth(), 'if-none-match': v1 } })).status).toBe(304);

    // Two editors read v1; the first write lands, the second is stale.
    const first = await write('edited by Ann', { 'if-match': v1 });
    expect(first.status).toBe(200);
    const v2 = String(first.headers.etag);
    expect(v2).not.toBe(v1);
    const stale = await write('edited by Bob', { 'if-match': v1 });
    expect(stale.status).toBe(412);
    expect(stale.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(stale.body.toString('utf8')) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 412, code: 'precondition_failed', etag: v2 });
    const now = await raw(`${t.url}/api/org/knowledge/skills/chase-invoices`, { headers: auth() });
    expect(JSON.parse(now.body.toString('utf8')).frontmatter.summary).toBe('edited by Ann');
    expect(now.headers.etag).toBe(v2);
    // The old tag no longer matches a conditional GET either.
    expect((await raw(`${t.url}/api/org/knowledge/skills/chase-invoices`, { headers: { ...auth(), 'if-none-match': v1 } })).status).toBe(200);

    // A weak tag never satisfies If-Match; `*` does while the skill exists.
    expect((await write('weak', { 'if-match': `W/${v2}` })).status).toBe(412);
    expect((await write('any version', { 'if-match': '*' })).status).toBe(200);
  });

  it('deletes only the version read, and If-Match on a missing skill is 412', async () => {
    const current = String((await raw(`${t.url}/api/org/knowledge/skills/chase-invoices`, { headers: auth() })).headers.etag);
    const stale = await raw(`${t.url}/api/org/knowledge/skills/chase-invoices?structure_id=${structureId}`, { method: 'DELETE', headers: { ...auth(), 'if-match': '"not-this-one"' } });
    expect(stale.status).toBe(412);
    const done = await raw(`${t.url}/api/org/knowledge/skills/chase-invoices?structure_id=${structureId}`, { method: 'DELETE', headers: { ...auth(), 'if-match': current } });
    expect(done.status).toBe(204);
    const missing = await write('again', { 'if-match': current });
    expect(missing.status).toBe(412);
    const response = await t.server.inject({ method: 'GET', url: '/api/org/knowledge/skills/chase-invoices', headers: auth() });
    await expectProblem(response, 404, 'not_found');
  });
});
