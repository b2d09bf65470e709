/**
 * Structure routes over HTTP (API.md §5): list with the caller's role, create from each
 * template, detail, archive and log, with every error the contract names.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';
import { ISO, UUID, NODE_KEYS } from './helpers/shapes.js';
import type { Node as NodeBody } from '../src/core/structures/types.js';

const ROLE_ID = /^[a-z0-9]+(-[a-z0-9]+)+$/;
const TEMPLATES = ['exec-team', 'sales-team', 'research-lab', 'personal', 'blank'];

interface DetailBody {
  id: string;
  name: string;
  template: string;
  created_at: string;
  role?: string;
  agents: NodeBody[];
}

function expectNode(node: NodeBody): void {
  expect(Object.keys(node).sort()).toEqual(NODE_KEYS);
  expect(node.id).toMatch(UUID);
  expect(node.role_id).toMatch(ROLE_ID);
  expect(node.created_at).toMatch(ISO);
  expect(['idle', 'working']).toContain(node.state);
  expect(typeof node.x).toBe('number');
  expect(typeof node.y).toBe('number');
}

describe('structures', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let stranger: { token: string; id: string };
  beforeAll(async () => {
    t = await startInstance();
    owner = await t.createUser('owner@example.com');
    stranger = await t.createUser('stranger@example.com');
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (token: string, payload: unknown) =>
    t.server.inject({ method: 'POST', url: '/api/org/structures', headers: t.auth(token), payload: payload as object });

  describe('POST /api/org/structures', () => {
    it.each(TEMPLATES)('creates a well-formed tree from the %s template', async (template) => {
      const response = await create(owner.token, { name: `From ${template}`, template });
      expect(response.statusCode).toBe(201);
      const body = response.json<DetailBody>();
      expect(Object.keys(body).sort()).toEqual(['agents', 'created_at', 'id', 'name', 'role', 'template']);
      expect(body).toMatchObject({ name: `From ${template}`, template, role: 'owner' });
      expect(body.id).toMatch(UUID);
      expect(body.created_at).toMatch(ISO);
      body.agents.forEach(expectNode);
      const ids = new Set(body.agents.map((node) => node.id));
      const roleIds = body.agents.map((node) => node.role_id);
      expect(new Set(roleIds).size).toBe(roleIds.length);
      if (template === 'blank') {
        expect(body.agents).toEqual([]);
        return;
      }
      expect(body.agents.length).toBeGreaterThanOrEqual(2);
      expect(body.agents.filter((node) => node.parent_id === null)).toHaveLength(1);
      for (const node of body.agents) {
        if (node.parent_id !== null) expect(ids.has(node.parent_id)).toBe(true);
        expect(node.starting_context.trim().length).toBeGreaterThan(0);
        expect(node.label.trim().length).toBeGreaterThan(0);
        expect(node.state).toBe('idle');
        expect(node.container_url).toBeNull();
      }
      // A readable layout: no two nodes on the same spot, children drawn below their parent.
      const spots = new Set(body.agents.map((node) => `${node.x},${node.y}`));
      expect(spots.size).toBe(body.agents.length);
      const byId = new Map(body.agents.map((node) => [node.id, node]));
      for (const node of body.agents) {
        const parent = node.parent_id === null ? undefined : byId.get(node.parent_id);
        if (parent) expect(node.y).toBeGreaterThan(parent.y);
      }
      // The caller is the owner, and the structure is on disk.
      const stored = JSON.parse(await readFile(join(t.home, '.org', 'structures', body.id, 'structure.json'), 'utf8')) as {
        members: { user_id: string; role: string }[];
        agents: unknown[];
      };
      expect(stored.members).toEqual([expect.objectContaining({ user_id: owner.id, role: 'owner' })]);
      expect(stored.agents).toHaveLength(body.agents.length);
    });

    it('400 for an unknown template, with errors naming body.template', async () => {
      const body = expectProblem(await create(owner.token, { name: 'X', template: 'no-such-template' }), 400, 'invalid_request');
      expect(body.errors).toEqual([{ path: 'body.template', message: expect.any(String) }]);
    });

    it('400 for a name that is empty, longer than 200 characters, missing or not a string', async () => {
      for (const payload of [{ name: '', template: 'blank' }, { name: 'x'.repeat(201), template: 'blank' }, { template: 'blank' }, { name: 5, template: 'blank' }]) {
        const body = expectProblem(await create(owner.token, payload), 400, 'invalid_request');
        expect(body.errors).toEqual(expect.arrayContaining([{ path: 'body.name', message: expect.any(String) }]));
      }
      const ok = await create(owner.token, { name: 'x'.repeat(200), template: 'blank', unknown_member: true });
      expect(ok.statusCode).toBe(201);
    });

    it('401 without a token, 415 for a non-JSON body', async () => {
      const anonymous = await t.server.inject({ method: 'POST', url: '/api/org/structures', payload: { name: 'X', template: 'blank' } });
      expectProblem(anonymous, 401, 'unauthorized');
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
      const text = await t.server.inject({
        method: 'POST',
        url: '/api/org/structures',
        headers: { ...t.auth(owner.token), 'content-type': 'text/plain' },
        payload: '{"name":"X","template":"blank"}',
      });
      expectProblem(text, 415, 'unsupported_media_type');
    });
  });

  describe('GET /api/org/structures', () => {
    it('lists only the caller’s structures, each with the caller’s role', async () => {
      const mine = await t.createStructure(owner.token, 'personal', 'Listed');
      const response = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(owner.token) });
      expect(response.statusCode).toBe(200);
      const { structures } = response.json<{ structures: Record<string, unknown>[] }>();
      const entry = structures.find((s) => s.id === mine.id);
      expect(entry).toBeDefined();
      expect(Object.keys(entry!).sort()).toEqual(['created_at', 'id', 'name', 'node_count', 'role']);
      expect(entry).toMatchObject({ name: 'Listed', role: 'owner', node_count: mine.agents.length });
      expect(structures.every((s) => s.role === 'owner')).toBe(true);

      await t.app.members.set(mine.id, stranger.id, 'viewer');
      const theirs = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(stranger.token) });
      expect(theirs.json()).toEqual({ structures: [expect.objectContaining({ id: mine.id, role: 'viewer' })] });

      const fresh = await t.createUser('fresh@example.com');
      const none = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth(fresh.token) });
      expect(none.json()).toEqual({ structures: [] });
    });

    it('the administrator sees every structure as owner', async () => {
      const response = await t.server.inject({ method: 'GET', url: '/api/org/structures', headers: t.auth() });
      const { structures } = response.json<{ structures: { role: string }[] }>();
      expect(structures.length).toBe(t.app.structures.summaries(null).length);
      expect(structures.length).toBeGreaterThan(0);
      expect(structures.every((s) => s.role === 'owner')).toBe(true);
    });

    it('401 without a token', async () => {
      const response = await t.server.inject({ method: 'GET', url: '/api/org/structures' });
      expectProblem(response, 401, 'unauthorized');
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    });
  });

  describe('GET /api/org/structures/{id}', () => {
    it('returns the detail with every node', async () => {
      const created = await t.createStructure(owner.token, 'sales-team', 'Detail');
      const response = await t.server.inject({ method: 'GET', url: `/api/org/structures/${created.id}`, headers: t.auth(owner.token) });
      expect(response.statusCode).toBe(200);
      const body = response.json<DetailBody>();
      expect(Object.keys(body).sort()).toEqual(['agents', 'created_at', 'id', 'name', 'template']);
      expect(body).toMatchObject({ id: created.id, name: 'Detail', template: 'sales-team' });
      expect(body.agents.map((node) => node.id)).toEqual(created.agents.map((node) => node.id));
      body.agents.forEach(expectNode);
    });

    it('shows every change on the next GET: the cached answer and its ETag follow each add, edit and delete', async () => {
      const created = await t.createStructure(owner.token, 'exec-team', 'Cached');
      const url = `/api/org/structures/${created.id}`;
      const get = () => t.server.inject({ method: 'GET', url, headers: t.auth(owner.token) });
      const first = await get();
      expect(first.statusCode).toBe(200);
      // The same version is answered with the same bytes and tag.
      const again = await get();
      expect(again.body).toBe(first.body);
      expect(again.headers.etag).toBe(first.headers.etag);

      const root = first.json<DetailBody>().agents.find((node) => node.parent_id === null)!;
      const added = await t.server.inject({ method: 'POST', url: `${url}/agents`, headers: t.auth(owner.token), payload: { role_id: 'exec-new', label: 'New', parent_id: root.id } });
      expect(added.statusCode).toBe(201);
      const afterAdd = await get();
      expect(afterAdd.json<DetailBody>().agents.map((node) => node.role_id)).toContain('exec-new');
      expect(afterAdd.headers.etag).not.toBe(first.headers.etag);

      const edited = await t.server.inject({ method: 'PATCH', url: `${url}/agents/exec-new`, headers: t.auth(owner.token), payload: { label: 'Renamed' } });
      expect(edited.statusCode).toBe(200);
      const afterEdit = await get();
      expect(afterEdit.json<DetailBody>().agents.find((node) => node.role_id === 'exec-new')?.label).toBe('Renamed');
      expect(afterEdit.headers.etag).not.toBe(afterAdd.headers.etag);

      const removed = await t.server.inject({ method: 'DELETE', url: `${url}/agents/exec-new`, headers: t.auth(owner.token) });
      expect(removed.statusCode).toBeLessThan(300);
      const afterDelete = await get();
      expect(afterDelete.json<DetailBody>().agents.map((node) => node.role_id)).not.toContain('exec-new');
      expect(afterDelete.headers.etag).not.toBe(afterEdit.headers.etag);
      // Back to the nodes it started with: the same content (so the same weak tag), as the core builds it now.
      expect(afterDelete.body).toBe(first.body);
      expect(afterDelete.headers.etag).toBe(first.headers.etag);
      expect(afterDelete.json()).toEqual(JSON.parse(JSON.stringify(t.app.structures.detail(created.id))));
    });

    it('404 for a non-member and for an unknown id, 400 for an id that is not a UUID', async () => {
      const created = await t.createStructure(owner.token, 'blank', 'Hidden');
      const hidden = expectProblem(
        await t.server.inject({ method: 'GET', url: `/api/org/structures/${created.id}`, headers: t.auth(stranger.token) }),
        404,
        'not_found',
      );
      const unknown = expectProblem(
        await t.server.inject({ method: 'GET', url: '/api/org/structures/7c9e6679-7425-40de-944b-e07fc1f90ae7', headers: t.auth(stranger.token) }),
        404,
        'not_found',
      );
      // A non-member cannot tell a hidden structure from a missing one.
      expect(hidden.title).toBe(unknown.title);
      const bad = expectProblem(await t.server.inject({ method: 'GET', url: '/api/org/structures/not-a-uuid', headers: t.auth(owner.token) }), 400, 'invalid_request');
      expect(bad.errors).toEqual([{ path: 'params.structure_id', message: expect.any(String) }]);
    });
  });

  describe('GET /api/org/structures/{id}/archive', () => {
    it('is empty for a new structure and lists deleted nodes with archived_at, newest first', async () => {
      const created = await t.createStructure(owner.token, 'exec-team', 'Archive');
      const url = `/api/org/structures/${created.id}/archive`;
      expect((await t.server.inject({ method: 'GET', url, headers: t.auth(owner.token) })).json()).toEqual({ agents: [] });
      const parents = new Set(created.agents.map((node) => node.parent_id));
      const leaves = created.agents.filter((node) => !parents.has(node.id)).slice(0, 2);
      expect(leaves).toHaveLength(2);
      for (const leaf of leaves) {
        const deleted = await t.server.inject({ method: 'DELETE', url: `/api/org/structures/${created.id}/agents/${leaf.role_id}`, headers: t.auth(owner.token) });
        expect(deleted.statusCode).toBe(204);
      }
      const response = await t.server.inject({ method: 'GET', url, headers: t.auth(owner.token) });
      expect(response.statusCode).toBe(200);
      const { agents } = response.json<{ agents: (Omit<NodeBody, 'state'> & { archived_at: string })[] }>();
      expect(agents.map((node) => node.role_id)).toEqual([leaves[1]!.role_id, leaves[0]!.role_id]);
      for (const node of agents) {
        expect(Object.keys(node).sort()).toEqual([...NODE_KEYS.filter((key) => key !== 'state'), 'archived_at'].sort());
        expect(node.archived_at).toMatch(ISO);
      }
    });

    it('404 for a non-member', async () => {
      const created = await t.createStructure(owner.token, 'blank', 'Archive hidden');
      expectProblem(
        await t.server.inject({ method: 'GET', url: `/api/org/structures/${created.id}/archive`, headers: t.auth(stranger.token) }),
        404,
        'not_found',
      );
    });
  });

  describe('GET /api/org/structures/{id}/log', () => {
    it('returns {entries: []} at first, then the log newest first, honouring limit', async () => {
      const created = await t.createStructure(owner.token, 'personal', 'Log');
      const url = `/api/org/structures/${created.id}/log`;
      expect((await t.server.inject({ method: 'GET', url, headers: t.auth(owner.token) })).json()).toEqual({ entries: [] });
      const node = created.agents[0]!;
      for (const title of ['first', 'second', 'third']) {
        await t.app.workspaceLog.append(created.id, [{ type: 'decision', title, role_id: node.role_id, node_id: node.id, run_id: null }]);
      }
      const all = await t.server.inject({ method: 'GET', url, headers: t.auth(owner.token) });
      expect(all.statusCode).toBe(200);
      const { entries } = all.json<{ entries: { id: string; type: string; title: string; created_at: string }[] }>();
      expect(entries.map((entry) => entry.title)).toEqual(['third', 'second', 'first']);
      expect(entries[0]).toMatchObject({ id: expect.stringMatching(UUID), type: 'decision', role_id: node.role_id, node_id: node.id, run_id: null });
      expect(entries[0]!.created_at).toMatch(ISO);
      const limited = await t.server.inject({ method: 'GET', url: `${url}?limit=2`, headers: t.auth(owner.token) });
      expect(limited.json<{ entries: { title: string }[] }>().entries.map((entry) => entry.title)).toEqual(['third', 'second']);
    });

    it('400 for a limit out of range or not a number, 404 for a non-member', async () => {
      const created = await t.createStructure(owner.token, 'blank', 'Log errors');
      for (const limit of ['0', '501', 'abc', '-1']) {
        const body = expectProblem(
          await t.server.inject({ method: 'GET', url: `/api/org/structures/${created.id}/log?limit=${limit}`, headers: t.auth(owner.token) }),
          400,
          'invalid_request',
        );
        expect(body.errors).toEqual([{ path: 'querystring.limit', message: expect.any(String) }]);
      }
      expectProblem(await t.server.inject({ method: 'GET', url: `/api/org/structures/${created.id}/log`, headers: t.auth(stranger.token) }), 404, 'not_found');
    });
  });
});
