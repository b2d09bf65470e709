/**
 * Bad input never changes state (issue 2, "Tests that must exist"): malformed JSON,
 * wrong types (bodies are not coerced), missing fields, huge bodies, path traversal in
 * ids and unknown templates all get a 4xx problem, and the `.org/` tree is byte for
 * byte what it was before.
 */
import { request as httpRequest } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startInstance, type TestInstance } from './helpers/instance.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Every file under `dir` (relative path → content), sorted. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries.sort((a, b) => join(a.parentPath, a.name).localeCompare(join(b.parentPath, b.name)))) {
    const file = join(entry.parentPath, entry.name);
    out[relative(dir, file) + (entry.isDirectory() ? '/' : '')] = entry.isFile() ? (await readFile(file)).toString('base64') : '';
  }
  return out;
}

function expectProblem4xx(response: LightMyRequestResponse, label: string): Record<string, unknown> {
  expect(response.statusCode, `${label}: ${response.body}`).toBeGreaterThanOrEqual(400);
  expect(response.statusCode, label).toBeLessThan(500);
  expect(response.headers['content-type'], label).toMatch(/^application\/problem\+json/);
  const body = response.json<Record<string, unknown>>();
  expect(body, label).toMatchObject({ status: response.statusCode, type: expect.any(String), title: expect.any(String), detail: expect.any(String), code: expect.any(String) });
  expect(response.body, label).not.toMatch(/\bat \S+:\d+|node_modules|\/src\/|\.ts\b/);
  return body;
}

describe('bad input', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structureId: string;
  let rootId: string;
  let leafRole: string;
  let keyId: string;

  beforeAll(async () => {
    t = await startInstance();
    owner = await t.createUser('owner@example.com');
    const s = await t.createStructure(owner.token, 'exec-team', 'Target');
    structureId = s.id;
    rootId = s.agents.find((node) => node.parent_id === null)!.id;
    const parents = new Set(s.agents.map((node) => node.parent_id));
    leafRole = s.agents.find((node) => !parents.has(node.id))!.role_id;
    keyId = (await t.app.keys.mint({ structureId, nodeId: s.agents[1]!.id, roleId: s.agents[1]!.role_id })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** Sends a request and checks it is refused with a 4xx problem and left `.org/` untouched. */
  async function refused(
    label: string,
    method: Method,
    url: string,
    options: { payload?: string | object; contentType?: string; status?: number; path?: string } = {},
  ): Promise<Record<string, unknown>> {
    const before = await snapshot(join(t.home, '.org'));
    const headers: Record<string, string> = { authorization: `Bearer ${owner.token}` };
    if (options.contentType) headers['content-type'] = options.contentType;
    else if (typeof options.payload === 'string') headers['content-type'] = 'application/json';
    const response = await t.server.inject({ method, url, headers, ...(options.payload === undefined ? {} : { payload: options.payload }) });
    const body = expectProblem4xx(response, label);
    if (options.status) expect(response.statusCode, label).toBe(options.status);
    if (options.path) expect(body.errors, label).toEqual(expect.arrayContaining([{ path: options.path, message: expect.any(String) }]));
    expect(await snapshot(join(t.home, '.org')), `${label} wrote to .org/`).toEqual(before);
    return body;
  }

  const s = () => `/api/org/structures/${structureId}`;

  it('malformed JSON → 400 invalid_request on every JSON route', async () => {
    const routes: [Method, string][] = [
      ['POST', '/api/org/structures'],
      ['POST', `${s()}/agents`],
      ['PATCH', `${s()}/agents/${leafRole}`],
      ['POST', `${s()}/agents/${leafRole}/mcp-key`],
      ['POST', `${s()}/share`],
      ['POST', '/api/org/invites/accept'],
    ];
    for (const [method, url] of routes) {
      for (const payload of ['{"name": "x",', '{name: x}', 'nul', '[1, 2', '"unterminated']) {
        const body = await refused(`${method} ${url} ${payload}`, method, url, { payload, status: 400 });
        expect(body.code).toBe('invalid_request');
        expect(String(body.detail)).not.toContain(t.home);
      }
    }
  });

  it('wrong types → 400 naming the field (bodies are not coerced)', async () => {
    const cases: [Method, string, object, string][] = [
      ['POST', `${s()}/agents`, { role_id: 'team-x', label: 'X', parent_id: rootId, x: '5' }, 'body.x'],
      ['POST', `${s()}/agents`, { role_id: 'team-x', label: 'X', parent_id: rootId, y: true }, 'body.y'],
      ['POST', `${s()}/agents`, { role_id: 'team-x', label: 5, parent_id: rootId }, 'body.label'],
      ['POST', `${s()}/agents`, { role_id: ['team-x'], label: 'X', parent_id: rootId }, 'body.role_id'],
      ['POST', `${s()}/agents`, { role_id: 'team-x', label: 'X', parent_id: 5 }, 'body.parent_id'],
      ['POST', `${s()}/agents`, { role_id: 'team-x', label: 'X', parent_id: rootId, starting_context: { text: 'x' } }, 'body.starting_context'],
      ['POST', `${s()}/agents`, { role_id: 'team-x', label: 'X', parent_id: rootId, x: 1e9 }, 'body.x'],
      ['PATCH', `${s()}/agents/${leafRole}`, { x: '10' }, 'body.x'],
      ['PATCH', `${s()}/agents/${leafRole}`, { label: null }, 'body.label'],
      ['POST', '/api/org/structures', { name: ['a'], template: 'blank' }, 'body.name'],
      ['POST', '/api/org/structures', { name: 'A', template: 5 }, 'body.template'],
      ['POST', `${s()}/share`, { email: true, role: 'viewer' }, 'body.email'],
      ['POST', `${s()}/share`, { email: 'a@example.com', role: 1 }, 'body.role'],
      ['POST', `${s()}/agents/${leafRole}/mcp-key`, { label: 42 }, 'body.label'],
      ['POST', '/api/org/invites/accept', { token: 42 }, 'body.token'],
    ];
    for (const [method, url, payload, path] of cases) {
      await refused(`${method} ${url} ${JSON.stringify(payload)}`, method, url, { payload, status: 400, path });
    }
  });

  it('a body that is not an object, or missing required fields → 400', async () => {
    const cases: [Method, string, string, string][] = [
      ['POST', '/api/org/structures', '{}', 'body.name'],
      ['POST', '/api/org/structures', '{"template":"blank"}', 'body.name'],
      ['POST', '/api/org/structures', '[]', 'body'],
      ['POST', '/api/org/structures', '"text"', 'body'],
      ['POST', `${s()}/agents`, '{"label":"X"}', 'body.role_id'],
      ['POST', `${s()}/agents`, 'null', 'body'],
      ['POST', `${s()}/share`, '{"email":"a@example.com"}', 'body.role'],
      ['POST', '/api/org/invites/accept', '{}', 'body.token'],
    ];
    for (const [method, url, payload, path] of cases) {
      await refused(`${method} ${url} ${payload}`, method, url, { payload, status: 400, path });
    }
    await refused('empty JSON body', 'POST', '/api/org/structures', { payload: '', contentType: 'application/json', status: 400 });
  });

  it('a non-JSON content type → 415', async () => {
    for (const contentType of ['text/plain', 'text/html', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']) {
      await refused(contentType, 'POST', '/api/org/structures', { payload: '{"name":"A","template":"blank"}', contentType, status: 415 });
      await refused(contentType, 'PATCH', `${s()}/agents/${leafRole}`, { payload: '{"label":"A"}', contentType, status: 415 });
    }
  });

  it('path traversal and NUL bytes in ids → 4xx, nothing read or written outside', async () => {
    const urls: [Method, string, object?][] = [
      ['POST', '/api/org/structures/..%2F..%2Fetc/agents', { role_id: 'team-x', label: 'X' }],
      ['GET', '/api/org/structures/..%2F..%2Fetc'],
      ['GET', '/api/org/structures/..%2F..%2F..%2Fetc%2Fpasswd/archive'],
      ['GET', '/api/org/structures/%2e%2e'],
      ['GET', '/api/org/structures/../../etc/passwd'],
      ['GET', `/api/org/structures/${structureId}%00/log`],
      ['GET', '/api/org/structures/%00'],
      ['PATCH', `${s()}/agents/..%2F..%2Fstructure.json`, { label: 'pwned' }],
      ['PATCH', `${s()}/agents/team-a%2F..%2F..`, { label: 'pwned' }],
      ['DELETE', `${s()}/agents/..%2F..`],
      ['DELETE', `${s()}/agents/${leafRole}%00`],
      ['POST', `${s()}/agents/..%2Fnodes/restore`],
      ['POST', `${s()}/agents/..%2F..%2Fkeys/mcp-key`, { label: 'x' }],
      ['DELETE', `${s()}/agents/${leafRole}/mcp-key/..%2F..%2Fkeys.json`],
      ['DELETE', `${s()}/agents/${leafRole}/mcp-key/${keyId}%00`],
      ['GET', `${s()}/log?limit=..%2F..`],
    ];
    for (const [method, url, payload] of urls) {
      const body = await refused(`${method} ${url}`, method, url, payload ? { payload } : {});
      expect(JSON.stringify(body)).not.toContain(t.home);
    }
    const inBody: object[] = [
      { role_id: '../x', label: 'X', parent_id: rootId },
      { role_id: 'team-x/../../y', label: 'X', parent_id: rootId },
      { role_id: 'team-x\u0000', label: 'X', parent_id: rootId },
      { role_id: 'team-x', label: 'X', parent_id: '../../etc' },
      { role_id: 'team-x', label: 'X', parent_id: `${rootId}\u0000` },
    ];
    for (const payload of inBody) await refused(`POST agents ${JSON.stringify(payload)}`, 'POST', `${s()}/agents`, { payload, status: 400 });
    await refused('template ../', 'POST', '/api/org/structures', { payload: { name: 'A', template: '../../package' }, status: 400, path: 'body.template' });
  });

  it('an unknown template → 400 naming body.template, and no structure folder appears', async () => {
    const before = (await readdir(join(t.home, '.org', 'structures'))).sort();
    for (const template of ['no-such', 'Exec-Team', 'exec-team.json', 'skill']) {
      await refused(`template ${template}`, 'POST', '/api/org/structures', { payload: { name: 'A', template }, status: 400, path: 'body.template' });
    }
    expect((await readdir(join(t.home, '.org', 'structures'))).sort()).toEqual(before);
  });

  it('rule violations (second root, foreign parent, duplicate role_id) write nothing either', async () => {
    await refused('second root', 'POST', `${s()}/agents`, { payload: { role_id: 'team-root', label: 'Root' }, status: 400, path: 'body.parent_id' });
    await refused('unknown parent', 'POST', `${s()}/agents`, {
      payload: { role_id: 'team-orphan', label: 'Orphan', parent_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
      status: 400,
      path: 'body.parent_id',
    });
    await refused('duplicate role_id', 'POST', `${s()}/agents`, { payload: { role_id: leafRole, label: 'Dup', parent_id: rootId }, status: 409 });
  });

  it('a body over the limit → 413 (25 MiB default)', async () => {
    const big = `{"role_id":"team-big","label":"Big","parent_id":"${rootId}","starting_context":"${'x'.repeat(25 * 1024 * 1024)}"}`;
    await refused('26 MiB node', 'POST', `${s()}/agents`, { payload: big, status: 413 });
    const over = `{"label":"${'y'.repeat(25 * 1024 * 1024)}"}`;
    const body = await refused('25 MiB patch', 'PATCH', `${s()}/agents/${leafRole}`, { payload: over, status: 413 });
    expect(body.code).toBe('payload_too_large');
  });
});

describe('huge bodies on a real socket', () => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { bodyLimit: 64 * 1024 } });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Streams `total` bytes with chunked transfer encoding (no Content-Length) and returns the answer. */
  function streamBody(path: string, total: number): Promise<{ status: number; body: string; contentType: string | undefined }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${t.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${'test-admin-token-0123456789abcdef'}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, contentType: res.headers['content-type'] }));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // The server may close the socket while we are still writing; the answer came first.
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
      });
      req.write('{"name":"');
      const chunk = 'z'.repeat(16 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end('","template":"blank"}');
      };
      pump();
    });
  }

  it('a chunked body past config.bodyLimit → 413 problem, and no structure is created', async () => {
    const before = t.app.structures.summaries(null).length;
    const response = await streamBody('/api/org/structures', 1024 * 1024);
    expect(response.status).toBe(413);
    expect(response.contentType).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(response.body)).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(t.app.structures.summaries(null).length).toBe(before);
    const health = await fetch(`${t.url}/api/org/health`);
    expect(health.status).toBe(200);
  });
});
