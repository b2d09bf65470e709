/**
 * Instance routes over HTTP (API.md §1, §2, §8): health, the OpenAPI document, user
 * creation, the problem+json shape of every kind of failure, body limits and the
 * per-token rate limit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';
import { ISO, UUID } from './helpers/shapes.js';


/** Asserts the RFC 9457 shape of API.md §2 and that nothing internal leaks. */
/** `METHOD /path/{param}` entries of Fastify's route tree (HEAD routes left out). */
function routesOf(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('').replace(/:(\w+)/g, '{$1}');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method && method !== 'HEAD') out.push(`${method} ${path}`);
    }
  }
  return out.sort();
}

/** The routes this part of the contract defines (other issues add more). */
const WORKSPACE_ROUTES = [
  'GET /api/org/health',
  'GET /api/org/openapi.json',
  'POST /api/org/users',
  'GET /api/org/structures',
  'POST /api/org/structures',
  'GET /api/org/structures/{structure_id}',
  'GET /api/org/structures/{structure_id}/archive',
  'GET /api/org/structures/{structure_id}/log',
  'POST /api/org/structures/{structure_id}/agents',
  'PATCH /api/org/structures/{structure_id}/agents/{role_id}',
  'DELETE /api/org/structures/{structure_id}/agents/{role_id}',
  'POST /api/org/structures/{structure_id}/agents/{role_id}/restore',
  'POST /api/org/structures/{structure_id}/agents/{role_id}/mcp-key',
  'GET /api/org/structures/{structure_id}/agents/{role_id}/mcp-keys',
  'DELETE /api/org/structures/{structure_id}/agents/{role_id}/mcp-key/{key_id}',
  'POST /api/org/structures/{structure_id}/share',
  'GET /api/org/structures/{structure_id}/members',
  'POST /api/org/invites/accept',
];

describe('instance routes', () => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await startInstance();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('GET /api/org/health', () => {
    it('answers without a token with exactly {status, version, skills, skills_index, uncommitted_skill_files}', async () => {
      const response = await t.server.inject({ method: 'GET', url: '/api/org/health' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      const body = response.json<Record<string, unknown>>();
      expect(Object.keys(body).sort()).toEqual(['skills', 'skills_index', 'status', 'uncommitted_skill_files', 'version']);
      expect(body).toEqual({ status: 'ok', version: 'test', skills: expect.any(Number), skills_index: 'ready', uncommitted_skill_files: 0 });
      expect(Number.isInteger(body.skills)).toBe(true);
    });

    it('ignores a bad bearer (health is public)', async () => {
      const response = await t.server.inject({ method: 'GET', url: '/api/org/health', headers: { authorization: 'Bearer nope' } });
      expect(response.statusCode).toBe(200);
    });
  });

  describe('GET /api/org/openapi.json', () => {
    it('is public OpenAPI 3.1 listing every route with each of its methods', async () => {
      const response = await t.server.inject({ method: 'GET', url: '/api/org/openapi.json' });
      expect(response.statusCode).toBe(200);
      const doc = response.json<{ openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>>; components: { securitySchemes: Record<string, unknown> } }>();
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.version).toBe('test');
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      const documented = Object.entries(doc.paths)
        .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
        .sort();
      // Every API route is documented (static web assets and /mcp are not part of the API document).
      const isApi = (route: string) => route.split(' ')[1]!.startsWith('/api/');
      const served = routesOf(t.server.printRoutes({ commonPrefix: false })).filter(isApi);
      expect(served.length).toBeGreaterThanOrEqual(WORKSPACE_ROUTES.length);
      expect(documented.filter(isApi)).toEqual(served);
      for (const route of WORKSPACE_ROUTES) expect(documented).toContain(route);
    });

    it('documents request bodies and parameters from the route schemas', async () => {
      const doc = (await t.server.inject({ method: 'GET', url: '/api/org/openapi.json' })).json<{
        paths: Record<string, Record<string, { requestBody?: unknown; parameters?: { name: string }[]; responses: Record<string, unknown> }>>;
      }>();
      const addNode = doc.paths['/api/org/structures/{structure_id}/agents']?.post;
      expect(addNode?.requestBody).toBeDefined();
      expect(addNode?.parameters?.map((p) => p.name)).toContain('structure_id');
      expect(Object.keys(addNode?.responses ?? {})).toEqual(expect.arrayContaining(['201', '400', '401', '403', '404', '409']));
    });
  });

  describe('POST /api/org/users', () => {
    it('creates a user: 201 {user: {id, email, created_at}, token} and the token works', async () => {
      const response = await t.server.inject({ method: 'POST', url: '/api/org/users', headers: t.auth(), payload: { email: 'Alice@Example.com' } });
      expect(response.statusCode).toBe(201);
      const body = response.json<{ user: { id: string; email: string; created_at: string }; token: string }>();
      expect(Object.keys(body).sort()).toEqual(['token', 'user']);
      expect(Object.keys(body.user).sort()).toEqual(['created_at', 'email', 'id']);
      expect(body.user.id).toMatch(UUID);
      expect(body.user.email).toBe('alice@example.com');
      expect(body.user.created_at).toMatch(ISO);
      expect(body.token).toMatch(/^org_u_[0-9A-Za-z]{32,}$/);
      const list = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(body.token) });
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual({ structures: [] });
    });

    it('409 for an address that already has a user (case-insensitive)', async () => {
      await t.createUser('dup@example.com');
      const response = await t.server.inject({ method: 'POST', url: '/api/org/users', headers: t.auth(), payload: { email: 'DUP@example.com' } });
      expectProblem(response, 409, 'conflict');
    });

    it('400 with errors[{path, message}] for a bad or missing e-mail', async () => {
      for (const payload of [{ email: 'not-an-address' }, {}, { email: 5 }]) {
        const response = await t.server.inject({ method: 'POST', url: '/api/org/users', headers: t.auth(), payload });
        const body = expectProblem(response, 400, 'invalid_request');
        expect(body.errors).toEqual(expect.arrayContaining([{ path: 'body.email', message: expect.any(String) }]));
      }
    });

    it('401 with WWW-Authenticate: Bearer without or with an unknown token', async () => {
      for (const headers of [{}, { authorization: 'Bearer org_u_unknownunknownunknownunknownunknown' }, { authorization: 'Basic abc' }]) {
        const response = await t.server.inject({ method: 'POST', url: '/api/org/users', headers, payload: { email: 'x@example.com' } });
        expectProblem(response, 401, 'unauthorized');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
      }
    });

    it('403 for a user who is not the administrator', async () => {
      const user = await t.createUser('plain@example.com');
      const response = await t.server.inject({ method: 'POST', url: '/api/org/users', headers: t.auth(user.token), payload: { email: 'y@example.com' } });
      expectProblem(response, 403, 'forbidden');
    });

    it('415 for a body that is not JSON', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const response = await t.server.inject({
          method: 'POST',
          url: '/api/org/users',
          headers: { ...t.auth(), 'content-type': type },
          payload: 'email=z@example.com',
        });
        expectProblem(response, 415, 'unsupported_media_type');
      }
      expect(await t.app.users.byEmail('z@example.com')).toBeUndefined();
    });
  });

  describe('HEAD routes', () => {
    it('are guarded like their GET: 401 without a token, 200 public health', async () => {
      const s = await t.createStructure(ADMIN_TOKEN, 'blank', 'Head');
      for (const url of ['/api/org/structures', `/api/org/structures/${s.id}`, `/api/org/structures/${s.id}/members`]) {
        const response = await t.server.inject({ method: 'HEAD', url });
        expect(response.statusCode, url).toBe(401);
        expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      expect((await t.server.inject({ method: 'HEAD', url: '/api/org/health' })).statusCode).toBe(200);
    });
  });

  describe('problem details', () => {
    it('an unknown route is a 404 problem', async () => {
      const response = await t.server.inject({ method: 'GET', url: '/api/org/nothing-here?x=1', headers: t.auth() });
      const body = expectProblem(response, 404, 'not_found');
      expect(body.type).toBe('urn:org:problem:not_found');
      expect(body.title).toBe('Not found');
    });

    it('an unexpected error is a 500 that reveals neither its message nor a stack', async () => {
      const original = t.app.structures.summaries.bind(t.app.structures);
      t.app.structures.summaries = () => {
        throw new Error(`ENOENT: open '${t.home}/.org/secret.json' at /work/main/src/x.ts:12`);
      };
      try {
        const response = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth() });
        const body = expectProblem(response, 500, 'internal');
        expect(response.body).not.toContain(t.home);
        expect(response.body).not.toContain('ENOENT');
        expect(response.body).not.toContain('secret');
        expect(body.detail).not.toMatch(/\//);
      } finally {
        t.app.structures.summaries = original;
      }
    });

    it('a Fastify body-limit error is a 413 problem', async () => {
      const small = await startInstance({ config: { bodyLimit: 1024 } });
      try {
        const response = await small.server.inject({
          method: 'POST',
          url: '/api/org/users',
          headers: small.auth(),
          payload: { email: 'big@example.com', padding: 'x'.repeat(4096) },
        });
        expectProblem(response, 413, 'payload_too_large');
        expect(await small.app.users.byEmail('big@example.com')).toBeUndefined();
      } finally {
        await small.close();
      }
    });

    it('the default body limit is 25 MiB: one byte more is a 413', async () => {
      expect(t.app.config.bodyLimit).toBe(25 * 1024 * 1024);
      const payload = `{"email":"huge@example.com","pad":"${'x'.repeat(25 * 1024 * 1024)}"}`;
      const response = await t.server.inject({ method: 'POST', url: '/api/org/users', headers: { ...t.auth(), 'content-type': 'application/json' }, payload });
      expectProblem(response, 413, 'payload_too_large');
    });
  });
});

describe('rate limit per token', () => {
  it('the request past the limit is a 429 with Retry-After; other tokens are unaffected', async () => {
    const t = await startInstance({ config: { rateLimit: 5 } });
    try {
      const user = await t.createUser('rate@example.com');
      for (let i = 0; i < 5; i++) {
        const ok = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(user.token) });
        expect(ok.statusCode).toBe(200);
        // Every answer tells the caller where it stands.
        expect(ok.headers['x-ratelimit-limit']).toBe('5');
        expect(ok.headers['x-ratelimit-remaining']).toBe(String(4 - i));
        expect(Number(ok.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(0);
        expect(Number(ok.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
      }
      const limited = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(user.token) });
      expectProblem(limited, 429, 'rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(limited.json().detail).toMatch(/^rate limit of 5 requests a minute exceeded; retry in \d+ seconds?$/);
      // Refused requests are counted too, and stay refused.
      expectProblem(await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(user.token) }), 429, 'rate_limited');
      // A request with an unknown token gets no window of its own: it is a failed authentication of its address.
      expectProblem(await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth('org_u_unknown') }), 401, 'unauthorized');
      // The administrator spent one request creating the user; it still has room.
      const other = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(ADMIN_TOKEN) });
      expect(other.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
