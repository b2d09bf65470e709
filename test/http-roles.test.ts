/**
 * The role matrix of API.md §3 as one table: every principal × every route of the
 * workspace API → the expected status, the problem code of a refusal, and (for writes)
 * whether the change happened. Members are made with `app.members.set`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

type PrincipalName = 'viewer' | 'operator' | 'owner' | 'admin' | 'mcp-own-node' | 'mcp-other-node' | 'mcp-other-structure' | 'no-token' | 'non-member';
type RouteName =
  | 'structure detail'
  | 'archive'
  | 'log'
  | 'create node'
  | 'patch node'
  | 'delete node'
  | 'restore node'
  | 'mint key'
  | 'list keys'
  | 'revoke key'
  | 'share'
  | 'members'
  | 'create structure'
  | 'list structures'
  | 'create user';

const PRINCIPALS: PrincipalName[] = ['viewer', 'operator', 'owner', 'admin', 'mcp-own-node', 'mcp-other-node', 'mcp-other-structure', 'no-token', 'non-member'];

/** Success status of each route. */
const OK: Record<RouteName, number> = {
  'structure detail': 200,
  archive: 200,
  log: 200,
  'create node': 201,
  'patch node': 200,
  'delete node': 204,
  'restore node': 201,
  'mint key': 201,
  'list keys': 200,
  'revoke key': 204,
  share: 200,
  members: 200,
  'create structure': 201,
  'list structures': 200,
  'create user': 201,
};

const READS: RouteName[] = ['structure detail', 'archive', 'log'];
const NODE_WRITES: RouteName[] = ['create node', 'patch node', 'delete node', 'restore node'];

/** Expected status for a principal on a route (API.md §3). */
function expected(principal: PrincipalName, route: RouteName): number {
  if (principal === 'no-token') return 401;
  if (route === 'create user') return principal === 'admin' ? 201 : 403;
  const isKey = principal.startsWith('mcp-');
  if (route === 'create structure' || route === 'list structures') return isKey ? 403 : OK[route];
  if (principal === 'non-member' || principal === 'mcp-other-structure') return 404;
  if (principal === 'admin' || principal === 'owner') return OK[route];
  if (READS.includes(route)) return OK[route];
  if (isKey) return 403;
  if (NODE_WRITES.includes(route)) return principal === 'operator' ? OK[route] : 403;
  return 403;
}

const CODE: Record<number, string> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not_found' };

interface Prepared {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  payload?: object;
  /** For writes: true once the change is visible in the app's state. */
  happened?: () => boolean | Promise<boolean>;
}

describe('role matrix', () => {
  let t: TestInstance;
  const tokens = new Map<PrincipalName, string | undefined>();
  let structureId: string;
  let rootId: string;
  /** The node the MCP key of `mcp-own-node` belongs to: a leaf, the target of node routes. */
  let nodeA: { id: string; role_id: string };
  let counter = 0;

  beforeAll(async () => {
    t = await startInstance();
    const owner = await t.createUser('owner@example.com');
    const viewer = await t.createUser('viewer@example.com');
    const operator = await t.createUser('operator@example.com');
    const outsider = await t.createUser('outsider@example.com');
    const s = await t.createStructure(owner.token, 'blank', 'Matrix');
    structureId = s.id;
    await t.app.members.set(structureId, viewer.id, 'viewer');
    await t.app.members.set(structureId, operator.id, 'operator');
    const root = await t.app.nodes.add(structureId, { role_id: 'team-lead', label: 'Lead' }, 'test');
    rootId = root.id;
    nodeA = await t.app.nodes.add(structureId, { role_id: 'team-alpha', label: 'Alpha', parent_id: rootId }, 'test');
    const nodeB = await t.app.nodes.add(structureId, { role_id: 'team-beta', label: 'Beta', parent_id: rootId }, 'test');
    const other = await t.createStructure(owner.token, 'personal', 'Elsewhere');
    const otherNode = other.agents[0]!;

    const mint = async (sid: string, node: { id: string; role_id: string }) =>
      (await t.app.keys.mint({ structureId: sid, nodeId: node.id, roleId: node.role_id, label: 'matrix' })).token;
    tokens.set('viewer', viewer.token);
    tokens.set('operator', operator.token);
    tokens.set('owner', owner.token);
    tokens.set('admin', ADMIN_TOKEN);
    tokens.set('mcp-own-node', await mint(structureId, nodeA));
    tokens.set('mcp-other-node', await mint(structureId, nodeB));
    tokens.set('mcp-other-structure', await mint(other.id, otherNode));
    tokens.set('no-token', undefined);
    tokens.set('non-member', outsider.token);
  });
  afterAll(async () => {
    await t.close();
  });

  const base = () => `/api/org/structures/${structureId}`;
  const live = (roleId: string) => t.app.structures.record(structureId).agents.some((node) => node.role_id === roleId);

  /** Builds the request of a route for one case, with fresh targets for destructive writes. */
  async function prepare(route: RouteName, principal: PrincipalName): Promise<Prepared> {
    const n = ++counter;
    const isKey = principal.startsWith('mcp-');
    switch (route) {
      case 'structure detail':
        return { method: 'GET', url: base() };
      case 'archive':
        return { method: 'GET', url: `${base()}/archive` };
      case 'log':
        return { method: 'GET', url: `${base()}/log?limit=5` };
      case 'create node': {
        const roleId = `team-new${n}`;
        return { method: 'POST', url: `${base()}/agents`, payload: { role_id: roleId, label: 'New', parent_id: rootId }, happened: () => live(roleId) };
      }
      case 'patch node': {
        const label = `Alpha ${n}`;
        return {
          method: 'PATCH',
          url: `${base()}/agents/${nodeA.role_id}`,
          payload: { label },
          happened: () => t.app.nodes.get(structureId, nodeA.role_id).label === label,
        };
      }
      case 'delete node': {
        // A node key aims at its own node; everyone else at a fresh leaf.
        const target = isKey ? nodeA : await t.app.nodes.add(structureId, { role_id: `team-leaf${n}`, label: 'Leaf', parent_id: rootId }, 'test');
        return { method: 'DELETE', url: `${base()}/agents/${target.role_id}`, happened: () => !live(target.role_id) };
      }
      case 'restore node': {
        const roleId = `team-gone${n}`;
        await t.app.nodes.add(structureId, { role_id: roleId, label: 'Gone', parent_id: rootId }, 'test');
        await t.app.nodes.remove(structureId, roleId, 'test');
        return { method: 'POST', url: `${base()}/agents/${roleId}/restore`, happened: () => live(roleId) };
      }
      case 'mint key': {
        const before = (await t.app.keys.list(structureId, nodeA.id)).length;
        return { method: 'POST', url: `${base()}/agents/${nodeA.role_id}/mcp-key`, payload: { label: `k${n}` }, happened: async () => (await t.app.keys.list(structureId, nodeA.id)).length > before };
      }
      case 'list keys':
        return { method: 'GET', url: `${base()}/agents/${nodeA.role_id}/mcp-keys` };
      case 'revoke key': {
        const key = await t.app.keys.mint({ structureId, nodeId: nodeA.id, roleId: nodeA.role_id, label: `r${n}` });
        return {
          method: 'DELETE',
          url: `${base()}/agents/${nodeA.role_id}/mcp-key/${key.id}`,
          happened: async () => !(await t.app.keys.list(structureId, nodeA.id)).some((listed) => listed.id === key.id),
        };
      }
      case 'share': {
        const email = `invitee${n}@example.com`;
        return {
          method: 'POST',
          url: `${base()}/share`,
          payload: { email, role: 'viewer' },
          happened: async () => (await t.app.invites.list(structureId)).some((invite) => invite.email === email),
        };
      }
      case 'members':
        return { method: 'GET', url: `${base()}/members` };
      case 'create structure': {
        const name = `Created ${n}`;
        return {
          method: 'POST',
          url: '/api/org/structures',
          payload: { name, template: 'blank' },
          happened: () => t.app.structures.summaries(null).some((summary) => summary.name === name),
        };
      }
      case 'list structures':
        return { method: 'GET', url: '/api/org/structures' };
      case 'create user': {
        const email = `made${n}@example.com`;
        return { method: 'POST', url: '/api/org/users', payload: { email }, happened: async () => (await t.app.users.byEmail(email)) !== undefined };
      }
    }
  }

  const routes = Object.keys(OK) as RouteName[];
  const table = PRINCIPALS.flatMap((principal) => routes.map((route) => ({ principal, route, status: expected(principal, route) })));

  it('covers every principal × route', () => {
    expect(table).toHaveLength(PRINCIPALS.length * 15);
    // Spot checks of the matrix itself, so a wrong `expected` cannot silently agree with a wrong server.
    expect(expected('viewer', 'structure detail')).toBe(200);
    expect(expected('viewer', 'create node')).toBe(403);
    expect(expected('operator', 'delete node')).toBe(204);
    expect(expected('operator', 'mint key')).toBe(403);
    expect(expected('owner', 'share')).toBe(200);
    expect(expected('mcp-own-node', 'log')).toBe(200);
    expect(expected('mcp-own-node', 'patch node')).toBe(403);
    expect(expected('mcp-other-structure', 'structure detail')).toBe(404);
    expect(expected('mcp-own-node', 'list structures')).toBe(403);
    expect(expected('non-member', 'members')).toBe(404);
    expect(expected('owner', 'create user')).toBe(403);
    expect(expected('no-token', 'create user')).toBe(401);
  });

  it.each(table)('$principal × $route → $status', async ({ principal, route, status }) => {
    const request = await prepare(route, principal);
    const token = tokens.get(principal);
    const response = await t.server.inject({
      method: request.method,
      url: request.url,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ...(request.payload ? { payload: request.payload } : {}),
    });
    expect(response.statusCode, response.body).toBe(status);
    if (status >= 400) {
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ status, code: CODE[status] });
      if (status === 401) expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    if (request.happened) expect(await request.happened(), 'write visible in state').toBe(status < 400);
  });

  it('a structure route answers a non-member exactly as an unknown structure', async () => {
    const outsider = tokens.get('non-member')!;
    const hidden = await t.server.inject({ method: 'GET', url: base(), headers: { authorization: `Bearer ${outsider}` } });
    const unknown = await t.server.inject({ method: 'GET', url: '/api/org/structures/7c9e6679-7425-40de-944b-e07fc1f90ae7', headers: { authorization: `Bearer ${outsider}` } });
    expect(hidden.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    // Ids aside (the structure's in the detail, each request's own in the instance), the answers are the same.
    const strip = (body: Record<string, unknown>) => ({ ...body, detail: String(body.detail).replace(/[0-9a-f-]{36}/g, 'ID'), instance: String(body.instance).replace(/[0-9a-f-]{36}/g, 'ID') });
    expect(strip(hidden.json())).toEqual(strip(unknown.json()));
  });
});
