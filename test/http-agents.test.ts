/**
 * Node routes over HTTP (API.md §5): add with every rule (unique role_id, parent in the
 * same structure, one root), patch, delete into the archive and restore, with the
 * node’s activity timeline (GET …/agents/{role_id}/timeline) kept throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';
import { ISO, UUID, NODE_KEYS } from './helpers/shapes.js';
import type { Node as NodeBody } from '../src/core/structures/types.js';


describe('nodes', () => {
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

  const add = (structureId: string, payload: unknown, token = owner.token) =>
    t.server.inject({ method: 'POST', url: `/api/org/structures/${structureId}/agents`, headers: t.auth(token), payload: payload as object });
  const patch = (structureId: string, roleId: string, payload: unknown, token = owner.token) =>
    t.server.inject({ method: 'PATCH', url: `/api/org/structures/${structureId}/agents/${roleId}`, headers: t.auth(token), payload: payload as object });
  const remove = (structureId: string, roleId: string, token = owner.token) =>
    t.server.inject({ method: 'DELETE', url: `/api/org/structures/${structureId}/agents/${roleId}`, headers: t.auth(token) });
  const restore = (structureId: string, roleId: string, token = owner.token) =>
    t.server.inject({ method: 'POST', url: `/api/org/structures/${structureId}/agents/${roleId}/restore`, headers: t.auth(token) });
  const detail = async (structureId: string) =>
    (await t.server.inject({ method: 'GET', url: `/api/org/structures/${structureId}`, headers: t.auth(owner.token) })).json<{ agents: NodeBody[] }>();
  const timeline = async (structureId: string, nodeId: string) => {
    const roleId = [...t.app.structures.record(structureId).agents, ...t.app.structures.record(structureId).archive].find((node) => node.id === nodeId)!.role_id;
    const response = await t.server.inject({ method: 'GET', url: `/api/org/structures/${structureId}/agents/${roleId}/timeline`, headers: t.auth(owner.token) });
    expect(response.statusCode).toBe(200);
    return response.json<{ entries: { type: string; actor: string; at: string; fields?: string[] }[] }>().entries;
  };

  describe('POST /agents', () => {
    it('on a blank structure: the first node needs no parent, the second needs one', async () => {
      const s = await t.createStructure(owner.token, 'blank', 'Blank');
      const root = await add(s.id, { role_id: 'team-lead', label: 'Lead' });
      expect(root.statusCode).toBe(201);
      const node = root.json<NodeBody>();
      expect(Object.keys(node).sort()).toEqual(NODE_KEYS);
      expect(node).toMatchObject({ role_id: 'team-lead', label: 'Lead', parent_id: null, x: 0, y: 0, state: 'idle', starting_context: '', container_url: null });
      expect(node.id).toMatch(UUID);
      expect(node.created_at).toMatch(ISO);

      const secondRoot = expectProblem(await add(s.id, { role_id: 'team-other', label: 'Other' }), 400, 'invalid_request');
      expect(secondRoot.errors).toEqual([{ path: 'body.parent_id', message: expect.any(String) }]);
      expectProblem(await add(s.id, { role_id: 'team-other', label: 'Other', parent_id: null }), 400, 'invalid_request');

      const child = await add(s.id, {
        role_id: 'team-dev',
        label: 'Developer',
        parent_id: node.id,
        x: 120.5,
        y: -40,
        starting_context: 'You write code.',
        container_url: 'https://agents.example.com/dev',
      });
      expect(child.statusCode).toBe(201);
      expect(child.json()).toMatchObject({ parent_id: node.id, x: 120.5, y: -40, starting_context: 'You write code.', container_url: 'https://agents.example.com/dev' });
      expect((await detail(s.id)).agents.map((n) => n.role_id)).toEqual(['team-lead', 'team-dev']);
      const lines = await timeline(s.id, node.id);
      expect(lines).toEqual([expect.objectContaining({ type: 'created', actor: 'owner@example.com', at: expect.stringMatching(ISO) })]);
    });

    it('takes the parent as a role_id (parent) as well as an id', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const cfo = s.agents.find((node) => node.role_id === 'exec-cfo')!;
      const byRole = await add(s.id, { role_id: 'exec-treasurer', label: 'Treasurer', parent: 'exec-cfo' });
      expect(byRole.statusCode).toBe(201);
      expect(byRole.json()).toMatchObject({ parent_id: cfo.id });
      const next = await add(s.id, { role_id: 'exec-analyst', label: 'Analyst', parent: 'exec-cfo', parent_id: cfo.id });
      expect(next.json()).toMatchObject({ parent_id: cfo.id });
      const leaf = await add(s.id, { role_id: 'exec-intern', label: 'Intern', parent: 'exec-analyst' });
      expect(leaf.json()).toMatchObject({ parent_id: next.json<{ id: string }>().id });
      expect(expectProblem(await add(s.id, { role_id: 'exec-ghost', label: 'Ghost', parent: 'exec-nobody' }), 400, 'invalid_request').errors).toEqual([
        { path: 'body.parent', message: expect.any(String) },
      ]);
      expectProblem(await add(s.id, { role_id: 'exec-split', label: 'Split', parent: 'exec-cto', parent_id: cfo.id }), 400, 'invalid_request');
    });

    it('places a node given no x and y below its parent, right of its last child, clear of every node of the structure', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const at = (response: { json<T>(): T }) => {
        const { x, y } = response.json<NodeBody>();
        return [x, y];
      };
      // exec-cfo sits at (-450, 180) with its controller at (-450, 360); the CTO's engineering lead is at (-150, 360).
      const treasurer = await add(s.id, { role_id: 'exec-treasurer', label: 'Treasurer', parent: 'exec-cfo' });
      expect(treasurer.statusCode).toBe(201);
      expect(at(treasurer)).toEqual([150, 360]); // right of the controller, past the engineering lead in the way
      expect(at(await add(s.id, { role_id: 'exec-analyst', label: 'Analyst', parent: 'exec-cfo' }))).toEqual([450, 360]);
      expect(at(await add(s.id, { role_id: 'exec-intern', label: 'Intern', parent: 'exec-analyst' }))).toEqual([450, 540]); // under a parent without children
      expect(at(await add(s.id, { role_id: 'exec-sre', label: 'SRE', parent: 'exec-cto' }))).toEqual([750, 360]); // past the CFO's two new reports
      // A position given is kept; one coordinate given keeps it and takes the other from the placement.
      expect(at(await add(s.id, { role_id: 'exec-pinned', label: 'Pinned', parent: 'exec-coo', x: -2000, y: 999 }))).toEqual([-2000, 999]);
      expect(at(await add(s.id, { role_id: 'exec-half', label: 'Half', parent: 'exec-cmo', x: 5000 }))).toEqual([5000, 360]);
      const nodes = (await detail(s.id)).agents;
      for (const a of nodes) {
        for (const b of nodes) if (a !== b) expect(Math.abs(a.x - b.x) >= 300 || Math.abs(a.y - b.y) >= 180, `${a.role_id} (${a.x}, ${a.y}) crowds ${b.role_id} (${b.x}, ${b.y})`).toBe(true);
      }
    });

    it('409 for a role_id already in the structure; the same role_id in another structure is fine', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const existing = s.agents[1]!;
      expectProblem(await add(s.id, { role_id: existing.role_id, label: 'Again', parent_id: s.agents[0]!.id }), 409, 'conflict');
      const other = await t.createStructure(owner.token, 'blank');
      expect((await add(other.id, { role_id: existing.role_id, label: 'Fine' })).statusCode).toBe(201);
    });

    it('400 when parent_id is a node of another structure or no node at all', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const other = await t.createStructure(owner.token, 'personal');
      for (const parentId of [other.agents[0]!.id, '7c9e6679-7425-40de-944b-e07fc1f90ae7']) {
        const body = expectProblem(await add(s.id, { role_id: 'team-new', label: 'New', parent_id: parentId }), 400, 'invalid_request');
        expect(body.errors).toEqual([{ path: 'body.parent_id', message: expect.any(String) }]);
      }
      expect((await detail(s.id)).agents.map((n) => n.role_id)).not.toContain('team-new');
    });

    it('400 for invalid fields, each named in errors[]', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const parent_id = s.agents[0]!.id;
      const cases: [unknown, string][] = [
        [{ role_id: 'ceo', label: 'One word', parent_id }, 'body.role_id'],
        [{ role_id: 'Team-Lead', label: 'Upper', parent_id }, 'body.role_id'],
        [{ role_id: 'team--lead', label: 'Double', parent_id }, 'body.role_id'],
        [{ role_id: `a-${'b'.repeat(63)}`, label: 'Long', parent_id }, 'body.role_id'],
        [{ label: 'Missing', parent_id }, 'body.role_id'],
        [{ role_id: 'team-x', parent_id }, 'body.label'],
        [{ role_id: 'team-x', label: '', parent_id }, 'body.label'],
        [{ role_id: 'team-x', label: 'X', parent_id: 'nope' }, 'body.parent_id'],
        [{ role_id: 'team-x', label: 'X', parent_id, x: '5' }, 'body.x'],
        [{ role_id: 'team-x', label: 'X', parent_id, starting_context: 'x'.repeat(64 * 1024 + 1) }, 'body.starting_context'],
        [{ role_id: 'team-x', label: 'X', parent_id, container_url: 'ftp://example.com/x' }, 'body.container_url'],
        [{ role_id: 'team-x', label: 'X', parent_id, container_url: 'not a url' }, 'body.container_url'],
      ];
      for (const [payload, path] of cases) {
        const body = expectProblem(await add(s.id, payload), 400, 'invalid_request');
        expect(body.errors, JSON.stringify(payload).slice(0, 80)).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
      }
      expect((await detail(s.id)).agents).toHaveLength(s.agents.length);
      const max = await add(s.id, { role_id: 'team-max', label: 'Max', parent_id, starting_context: 'x'.repeat(64 * 1024) });
      expect(max.statusCode).toBe(201);
    });

    it('404 for a non-member and an unknown structure', async () => {
      const s = await t.createStructure(owner.token, 'blank');
      expectProblem(await add(s.id, { role_id: 'team-x', label: 'X' }, stranger.token), 404, 'not_found');
      expectProblem(await add('7c9e6679-7425-40de-944b-e07fc1f90ae7', { role_id: 'team-x', label: 'X' }), 404, 'not_found');
    });
  });

  describe('PATCH /agents/{role_id}', () => {
    it('refuses to change role_id (400) and changes nothing', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const target = s.agents[1]! as unknown as NodeBody;
      const body = expectProblem(await patch(s.id, target.role_id, { label: 'Renamed', role_id: 'team-changed' }), 400, 'invalid_request');
      expect(body.detail).toContain('role_id cannot be changed');
      expect(body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.role_id' }), expect.objectContaining({ path: 'params.role_id' })]));
      expect((await detail(s.id)).agents.find((n) => n.id === target.id)).toMatchObject({ label: target.label, role_id: target.role_id });
      // The same role_id in the body is no change: accepted.
      expect((await patch(s.id, target.role_id, { label: 'Renamed', role_id: target.role_id })).statusCode).toBe(200);
    });

    it('moves a node with its subtree under another parent (by role_id or id); cycles and moving the root are 400', async () => {
      const s = await t.createStructure(owner.token, 'blank');
      const root = (await add(s.id, { role_id: 'exec-ceo', label: 'CEO' })).json<NodeBody>();
      const cfo = (await add(s.id, { role_id: 'exec-cfo', label: 'CFO', parent_id: root.id })).json<NodeBody>();
      const coo = (await add(s.id, { role_id: 'exec-coo', label: 'COO', parent_id: root.id })).json<NodeBody>();
      const analyst = (await add(s.id, { role_id: 'fin-analyst', label: 'Analyst', parent_id: cfo.id })).json<NodeBody>();

      const moved = await patch(s.id, 'exec-cfo', { parent: 'exec-coo' });
      expect(moved.statusCode).toBe(200);
      expect(moved.json()).toMatchObject({ id: cfo.id, parent_id: coo.id });
      const tree = (await detail(s.id)).agents;
      expect(tree.find((n) => n.id === analyst.id)?.parent_id).toBe(cfo.id);
      expect((await patch(s.id, 'exec-cfo', { parent_id: root.id })).json()).toMatchObject({ parent_id: root.id });

      const cycle = expectProblem(await patch(s.id, 'exec-cfo', { parent: 'fin-analyst' }), 400, 'invalid_request');
      expect(cycle.errors).toEqual([{ path: 'body.parent', message: 'would make a cycle' }]);
      expectProblem(await patch(s.id, 'exec-cfo', { parent: 'exec-cfo' }), 400, 'invalid_request');
      expectProblem(await patch(s.id, 'exec-ceo', { parent: 'exec-coo' }), 400, 'invalid_request');
      expectProblem(await patch(s.id, 'exec-cfo', { parent: 'team-nobody' }), 400, 'invalid_request');
      expectProblem(await patch(s.id, 'exec-cfo', { parent: 'exec-coo', parent_id: root.id }), 400, 'invalid_request');
      expect((await detail(s.id)).agents.find((n) => n.id === cfo.id)?.parent_id).toBe(root.id);
      // A move makes deleting the old parent possible.
      await patch(s.id, 'fin-analyst', { parent: 'exec-coo' });
      expect((await remove(s.id, "exec-cfo")).statusCode).toBe(204);
    });

    it('changes label, position, starting_context and container_url', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const target = s.agents[1]!;
      const response = await patch(s.id, target.role_id, {
        label: 'Renamed',
        x: 10,
        y: 20,
        starting_context: 'New context',
        container_url: 'http://localhost:9000',
      });
      expect(response.statusCode).toBe(200);
      const node = response.json<NodeBody>();
      expect(Object.keys(node).sort()).toEqual(NODE_KEYS);
      expect(node).toMatchObject({
        id: target.id,
        role_id: target.role_id,
        parent_id: target.parent_id,
        label: 'Renamed',
        x: 10,
        y: 20,
        starting_context: 'New context',
        container_url: 'http://localhost:9000',
      });
      const stored = (await detail(s.id)).agents.find((n) => n.id === target.id);
      expect(stored).toMatchObject({ label: 'Renamed', x: 10, y: 20, role_id: target.role_id });
      const cleared = await patch(s.id, target.role_id, { container_url: null });
      expect(cleared.json()).toMatchObject({ container_url: null, label: 'Renamed' });
      expect((await timeline(s.id, target.id)).map((line) => line.type)).toEqual(['updated', 'updated']);
    });

    it('400 for bad fields, 404 for an unknown node or a non-member', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const roleId = s.agents[1]!.role_id;
      for (const [payload, path] of [
        [{ label: '' }, 'body.label'],
        [{ x: '5' }, 'body.x'],
        [{ container_url: 'javascript:alert(1)' }, 'body.container_url'],
      ] as const) {
        const body = expectProblem(await patch(s.id, roleId, payload), 400, 'invalid_request');
        expect(body.errors).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
      }
      expectProblem(await patch(s.id, 'team-nobody', { label: 'X' }), 404, 'not_found');
      expectProblem(await patch(s.id, roleId, { label: 'X' }, stranger.token), 404, 'not_found');
      const unchanged = (await detail(s.id)).agents.find((node) => node.role_id === roleId);
      expect(unchanged).toMatchObject({ label: (s.agents[1] as unknown as NodeBody).label, x: (s.agents[1] as unknown as NodeBody).x });
    });
  });

  describe('DELETE and restore', () => {
    it('a leaf: 204 → archive with archived_at → restore 201 with the same id, timeline kept', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const parents = new Set(s.agents.map((node) => node.parent_id));
      const leaf = s.agents.find((node) => !parents.has(node.id))!;
      await patch(s.id, leaf.role_id, { label: 'Before delete' });

      const deleted = await remove(s.id, leaf.role_id);
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expect((await detail(s.id)).agents.map((node) => node.id)).not.toContain(leaf.id);
      const archive = (await t.server.inject({ method: 'GET', url: `/api/org/structures/${s.id}/archive`, headers: t.auth(owner.token) })).json<{
        agents: { id: string; role_id: string; label: string; archived_at: string }[];
      }>();
      expect(archive.agents).toEqual([expect.objectContaining({ id: leaf.id, role_id: leaf.role_id, label: 'Before delete', archived_at: expect.stringMatching(ISO) })]);

      expectProblem(await remove(s.id, leaf.role_id), 404, 'not_found');
      expectProblem(await patch(s.id, leaf.role_id, { label: 'X' }), 404, 'not_found');

      const restored = await restore(s.id, leaf.role_id);
      expect(restored.statusCode).toBe(201);
      const node = restored.json<NodeBody>();
      expect(Object.keys(node).sort()).toEqual(NODE_KEYS);
      expect(node).toMatchObject({ id: leaf.id, role_id: leaf.role_id, parent_id: leaf.parent_id, label: 'Before delete', state: 'idle' });
      expect((await detail(s.id)).agents.map((n) => n.id)).toContain(leaf.id);
      expect((await t.server.inject({ method: 'GET', url: `/api/org/structures/${s.id}/archive`, headers: t.auth(owner.token) })).json()).toEqual({ agents: [] });

      const lines = await timeline(s.id, leaf.id);
      expect(lines.map((line) => line.type)).toEqual(['updated', 'archived', 'restored']);
      for (const line of lines) expect(line).toMatchObject({ actor: 'owner@example.com', at: expect.stringMatching(ISO) });
    });

    it('a node with children: 409 and nothing archived', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const root = s.agents.find((node) => node.parent_id === null)!;
      const body = expectProblem(await remove(s.id, root.role_id), 409, 'conflict');
      expect(body.detail).toMatch(/child/);
      expect((await detail(s.id)).agents).toHaveLength(s.agents.length);
    });

    it('restore: 409 while a live node has the role_id, 404 when nothing is archived', async () => {
      const s = await t.createStructure(owner.token, 'blank');
      const root = (await add(s.id, { role_id: 'team-lead', label: 'Lead' })).json<NodeBody>();
      const first = (await add(s.id, { role_id: 'team-dev', label: 'First dev', parent_id: root.id })).json<NodeBody>();
      expect((await remove(s.id, 'team-dev')).statusCode).toBe(204);
      const second = await add(s.id, { role_id: 'team-dev', label: 'Second dev', parent_id: root.id });
      expect(second.statusCode).toBe(201);
      expect(second.json<NodeBody>().id).not.toBe(first.id);
      expectProblem(await restore(s.id, 'team-dev'), 409, 'conflict');
      expectProblem(await restore(s.id, 'team-lead'), 409, 'conflict');
      expectProblem(await restore(s.id, 'team-never'), 404, 'not_found');
      // Once the live one is gone the archived ones come back newest first.
      expect((await remove(s.id, 'team-dev')).statusCode).toBe(204);
      const back = await restore(s.id, 'team-dev');
      expect(back.statusCode).toBe(201);
      expect(back.json<NodeBody>().id).toBe(second.json<NodeBody>().id);
    });

    it('deleting a node revokes its MCP keys', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const parents = new Set(s.agents.map((node) => node.parent_id));
      const leaf = s.agents.find((node) => !parents.has(node.id))!;
      const minted = await t.server.inject({ method: 'POST', url: `/api/org/structures/${s.id}/agents/${leaf.role_id}/mcp-key`, headers: t.auth(owner.token) });
      const { token } = minted.json<{ token: string }>();
      expect((await t.server.inject({ method: 'GET', url: `/api/org/structures/${s.id}`, headers: t.auth(token) })).statusCode).toBe(200);
      expect((await remove(s.id, leaf.role_id)).statusCode).toBe(204);
      const after = await t.server.inject({ method: 'GET', url: `/api/org/structures/${s.id}`, headers: t.auth(token) });
      expectProblem(after, 401, 'unauthorized');
    });

    it('404 for a non-member on delete and restore; 400 for a malformed role_id', async () => {
      const s = await t.createStructure(owner.token, 'exec-team');
      const leaf = s.agents[s.agents.length - 1]!;
      expectProblem(await remove(s.id, leaf.role_id, stranger.token), 404, 'not_found');
      expectProblem(await restore(s.id, leaf.role_id, stranger.token), 404, 'not_found');
      expectProblem(await remove(s.id, 'Bad_Role'), 400, 'invalid_request');
      expect((await detail(s.id)).agents).toHaveLength(s.agents.length);
    });
  });
});
