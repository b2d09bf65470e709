/**
 * Scope resolution (API.md §3, §9): a request acts on the one structure (and node) its
 * route declares, and naming a structure_id or role_id in two places with different
 * values is a 400 on every route. This walks every operation of the OpenAPI document as
 * the owner of structure A (and with A's node key), aims the other places at structure
 * B, and checks that B did not change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
interface Operation {
  method: Method;
  path: string;
  /** True when the operation documents a JSON request body. */
  json: boolean;
}

const SECRET = 'inbound-secret-0123456789';

describe('scope: one structure and one node per request', () => {
  let t: TestInstance;
  let attacker: { token: string; id: string };
  let nodeKey: string;
  let a: string;
  let b: string;
  let runA: string;
  let keyA: string;
  const operations: Operation[] = [];
  let snapshotB: () => Promise<unknown>;

  beforeAll(async () => {
    t = await startInstance({ config: { rateLimit: 100_000, inboundSecret: SECRET } });
    attacker = await t.createUser('attacker@example.com');
    const victim = await t.createUser('victim@example.com');
    a = (await t.createStructure(attacker.token, 'blank', 'A')).id;
    b = (await t.createStructure(victim.token, 'blank', 'B')).id;
    await t.app.nodes.add(a, { role_id: 'team-a', label: 'A node' }, 'test');
    await t.app.nodes.add(b, { role_id: 'team-b', label: 'B node' }, 'test');
    const minted = await t.app.keys.mint({ structureId: a, nodeId: t.app.nodes.get(a, 'team-a').id, roleId: 'team-a', label: 'a' });
    nodeKey = minted.token;
    keyA = minted.id;
    const run = await t.app.chat.send({ structureId: a, roleId: 'team-a', message: 'hello' });
    await run.done;
    runA = run.id;
    await t.app.skills.upsert({
      slug: 'b-secret-playbook',
      frontmatter: { type: 'skill', name: 'B secret', category: 'ops', difficulty: 'low', tags: [], status: 'complete', summary: 'B only', structure_id: b },
      body: '## [one] Step 1: Do it\n\nB only.\n',
      structureId: b,
      actor: 'victim',
    });

    const doc = (await t.server.inject({ method: 'GET', url: '/api/org/openapi.json' })).json<{
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
    }>();
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/org') && path !== '/mcp') continue;
      for (const [method, operation] of Object.entries(methods)) {
        if (method === 'head') continue;
        operations.push({ method: method.toUpperCase() as Method, path, json: Boolean(operation.requestBody?.content?.['application/json']) });
      }
    }

    snapshotB = async () => {
      const admin = t.auth();
      const get = async (url: string) => (await t.server.inject({ method: 'GET', url, headers: admin })).json<unknown>();
      return {
        detail: await get(`/api/org/structures/${b}`),
        archive: await get(`/api/org/structures/${b}/archive`),
        members: await get(`/api/org/structures/${b}/members`),
        keys: await get(`/api/org/structures/${b}/agents/team-b/mcp-keys`),
        history: await get(`/api/org/chat/history?structure_id=${b}&role_id=team-b&limit=500`),
        artifacts: await get(`/api/org/structures/${b}/agents/team-b/artifacts`),
        skills: await get(`/api/org/knowledge/skills?structure_id=${b}&status=draft,complete,deprecated`),
        skill: await get('/api/org/knowledge/skills/b-secret-playbook'),
        deleted: await get(`/api/org/knowledge/deleted?structure_id=${b}`),
      };
    };
  });
  afterAll(async () => {
    await t.close();
  });

  /** A value for each path parameter of the API; a new parameter must be added here. */
  function fill(path: string): string {
    const values: Record<string, string> = {
      structure_id: a,
      role_id: 'team-a',
      run_id: runA,
      slug: 'b-secret-playbook',
      key_id: keyA,
      name: 'report.md',
      user_id: attacker.id,
      invite_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      webhook_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      version: 'v1',
    };
    return path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const value = values[name];
      if (value === undefined) throw new Error(`no test value for path parameter {${name}} of ${path}: add one`);
      return value;
    });
  }

  async function send(op: Operation, query: string, body: Record<string, unknown> | undefined, token: string): Promise<LightMyRequestResponse> {
    const url = `${fill(op.path)}${query}`;
    const headers: Record<string, string> = { ...t.auth(token) };
    if (body === undefined) return t.server.inject({ method: op.method, url, headers });
    return t.server.inject({ method: op.method, url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  }

  const hostile = { structure_id: () => b, role_id: 'team-b' };
  const bodyFor = (op: Operation) =>
    op.method !== 'GET' ? { structure_id: hostile.structure_id(), role_id: hostile.role_id, message: 'hi' } : undefined;

  function expectScopeConflict(response: LightMyRequestResponse, op: Operation): void {
    const label = `${op.method} ${op.path}`;
    expect(response.statusCode, `${label}: ${response.body}`).toBe(400);
    const problem = expectProblem(response, 400, 'invalid_request');
    const paths = (problem.errors as { path: string }[]).map((error) => error.path);
    expect(paths.some((path) => path.endsWith('.structure_id') || path.endsWith('.role_id')), label).toBe(true);
  }

  it('covers every operation of the API (the document lists them)', () => {
    expect(operations.length).toBeGreaterThan(35);
    expect(operations.some((op) => op.path === '/api/org/chat/message/sync')).toBe(true);
  });

  it('path (or first place) names A, query and body name B: 400 on every operation, for a user and for A’s node key', async () => {
    const before = await snapshotB();
    for (const token of [attacker.token, nodeKey]) {
      for (const op of operations) {
        const query = `?structure_id=${b}&role_id=team-b`;
        const hasPathScope = op.path.includes('{structure_id}') || op.path.includes('{run_id}');
        if (hasPathScope) {
          expectScopeConflict(await send(op, query, bodyFor(op), token), op);
        } else if (op.method !== 'GET') {
          // No scope in the path: A in the query, B in the body.
          expectScopeConflict(await send(op, `?structure_id=${a}&role_id=team-a`, bodyFor(op), token), op);
        } else {
          // A GET without a path scope: the query names two structures.
          expectScopeConflict(await send(op, `?structure_id=${a}&structure_id=${b}&role_id=team-a`, undefined, token), op);
        }
      }
    }
    expect(await snapshotB()).toEqual(before);
  });

  it('the reported exploits: a turn and a skill write on B through a request scoped to A are refused', async () => {
    const before = await snapshotB();
    const sync = await t.server.inject({
      method: 'POST',
      url: `/api/org/chat/message/sync?structure_id=${a}&role_id=team-a`,
      headers: t.auth(attacker.token),
      payload: { structure_id: b, role_id: 'team-b', message: 'hi' },
    });
    const problem = expectProblem(sync, 400, 'invalid_request');
    expect(problem.detail).toContain('a request acts on one structure');
    const skill = await t.server.inject({
      method: 'POST',
      url: `/api/org/knowledge/skills?structure_id=${a}`,
      headers: t.auth(attacker.token),
      payload: {
        structure_id: b,
        slug: 'b-secret-playbook',
        frontmatter: { type: 'skill', name: 'Overwritten', category: 'ops', difficulty: 'low', tags: [], status: 'complete', summary: 'x' },
        body: 'x',
      },
    });
    expectProblem(skill, 400, 'invalid_request');
    expect(await snapshotB()).toEqual(before);
  });

  it('a request that names B in one place only reaches B’s authorization: 404 for a non-member and for A’s key', async () => {
    const before = await snapshotB();
    for (const token of [attacker.token, nodeKey]) {
      const sync = await t.server.inject({
        method: 'POST',
        url: '/api/org/chat/message/sync',
        headers: t.auth(token),
        payload: { structure_id: b, role_id: 'team-b', message: 'hi' },
      });
      expectProblem(sync, 404, 'not_found');
      const history = await t.server.inject({ method: 'GET', url: `/api/org/chat/history?structure_id=${b}&role_id=team-b&limit=5`, headers: t.auth(token) });
      expectProblem(history, 404, 'not_found');
    }
    expect(await snapshotB()).toEqual(before);
  });

  it('the same value named twice is no conflict', async () => {
    const response = await t.server.inject({
      method: 'POST',
      url: `/api/org/chat/message/sync?structure_id=${a}&role_id=team-a`,
      headers: t.auth(attacker.token),
      payload: { structure_id: a, role_id: 'team-a', message: 'hello again' },
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('run routes: a run of another structure is answered like an unknown run, revealing no structure id', async () => {
    const victimRun = await t.app.chat.send({ structureId: b, roleId: 'team-b', message: 'private' });
    await victimRun.done;
    for (const url of [`/api/org/chat/runs/${victimRun.id}/events`]) {
      const body = expectProblem(await t.server.inject({ method: 'GET', url, headers: t.auth(attacker.token) }), 404, 'not_found');
      expect(body.detail).toBe(`run ${victimRun.id} not found`);
      expect(JSON.stringify(body)).not.toContain(b);
    }
    const cancel = await t.server.inject({ method: 'POST', url: `/api/org/chat/runs/${victimRun.id}/cancel`, headers: t.auth(nodeKey) });
    const body = expectProblem(cancel, 404, 'not_found');
    expect(JSON.stringify(body)).not.toContain(b);
  });
});
