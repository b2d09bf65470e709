import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOrgError } from '../errors.js';
import { MemberService, NodeActivity, NodeService, StructureRegistry, StructureService, createFsStructureStore } from '../structures/index.js';
import { systemClock } from '../util/index.js';
import { ConnectionRegistry } from './connections.js';
import { KeyService } from './keys.js';
import { AccessControl, type Principal } from './principal.js';
import type { Action } from './roles.js';
import { UserService } from './users.js';

const ADMIN = 'admin-token-0123456789abcdef';

describe('AccessControl', () => {
  let dir: string;
  let access: AccessControl;
  let keys: KeyService;
  let structures: StructureService;
  let nodes: NodeService;
  let members: MemberService;
  let users: UserService;
  let structureId: string;
  let otherId: string;
  const principals = new Map<string, Principal>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-access-'));
    users = new UserService({ file: join(dir, 'users.json') });
    keys = new KeyService({ file: join(dir, 'keys.json'), connections: new ConnectionRegistry() });
    const store = createFsStructureStore({ dir: join(dir, 'structures') });
    const registry = new StructureRegistry(store, systemClock);
    const activity = new NodeActivity();
    structures = new StructureService({ registry, templates: new Map([['blank', { name: 'blank', description: '', nodes: [] }]]), activity });
    nodes = new NodeService({ registry, store, activity, dir: join(dir, 'structures') });
    members = new MemberService(registry);
    await Promise.all([users.load(), keys.load(), registry.load()]);
    access = new AccessControl({ users, keys, structures, members, adminToken: ADMIN });
    const tokens: Record<string, string> = {};
    for (const name of ['owner', 'operator', 'viewer', 'outsider']) {
      const created = await users.create(`${name}@example.com`);
      tokens[name] = created.token;
    }
    const ownerId = (await users.byEmail('owner@example.com'))!.id;
    structureId = (await structures.create({ name: 'S', template: 'blank', ownerId })).id;
    otherId = (await structures.create({ name: 'O', template: 'blank', ownerId })).id;
    await members.set(structureId, (await users.byEmail('operator@example.com'))!.id, 'operator');
    await members.set(structureId, (await users.byEmail('viewer@example.com'))!.id, 'viewer');
    const root = await nodes.add(structureId, { role_id: 'team-root', label: 'Root' }, 'test');
    const key = await keys.mint({ structureId, nodeId: root.id, roleId: root.role_id });
    tokens.key = key.token;
    tokens.admin = ADMIN;
    for (const [name, token] of Object.entries(tokens)) {
      const principal = await access.authenticate(token);
      if (!principal) throw new Error(`${name} did not authenticate`);
      principals.set(name, principal);
    }
  });
  afterAll(async () => {
    await keys.close();
    await rm(dir, { recursive: true, force: true });
  });

  const outcome = (name: string, action: Action, id = structureId, roleId?: string): string => {
    try {
      return access.authorize(principals.get(name)!, action, id, roleId).role;
    } catch (error) {
      if (isOrgError(error)) return String(error.status);
      throw error;
    }
  };

  it('authenticates each kind of token, and nothing else', async () => {
    expect(principals.get('admin')).toEqual({ kind: 'admin', id: 'admin' });
    expect(principals.get('owner')).toMatchObject({ kind: 'user', user: { email: 'owner@example.com' } });
    expect(principals.get('key')).toMatchObject({ kind: 'mcp', key: { structure_id: structureId, role_id: 'team-root' } });
    expect(await access.authenticate('org_u_unknownunknownunknownunknownunknown')).toBeUndefined();
    expect(await access.authenticate(`${ADMIN}x`)).toBeUndefined();
    expect(await access.authenticate('')).toBeUndefined();
  });

  it('applies the matrix: role per action, 404 for non-members and unknown structures', () => {
    const table: [string, Action, string][] = [
      ['viewer', 'read', 'viewer'],
      ['viewer', 'manage_nodes', '403'],
      ['viewer', 'chat', '403'],
      ['operator', 'manage_nodes', 'operator'],
      ['operator', 'write_skills', 'operator'],
      ['operator', 'admin_structure', '403'],
      ['owner', 'admin_structure', 'owner'],
      ['admin', 'admin_structure', 'owner'],
      ['outsider', 'read', '404'],
      ['key', 'read', 'node'],
      ['key', 'manage_nodes', '403'],
      ['key', 'admin_structure', '403'],
      ['key', 'write_skills', '403'],
    ];
    for (const [name, action, expected] of table) expect(outcome(name, action), `${name} ${action}`).toBe(expected);
    expect(outcome('owner', 'read', '7c9e6679-7425-40de-944b-e07fc1f90ae7')).toBe('404');
    expect(outcome('admin', 'read', '7c9e6679-7425-40de-944b-e07fc1f90ae7')).toBe('404');
  });

  it('a node key: own node yes, another node of its structure 403, another structure 404', () => {
    expect(outcome('key', 'chat', structureId, 'team-root')).toBe('node');
    expect(outcome('key', 'read_history', structureId, 'team-root')).toBe('node');
    expect(outcome('key', 'chat', structureId, 'team-other')).toBe('403');
    expect(outcome('key', 'read_history', structureId, 'team-other')).toBe('403');
    expect(outcome('key', 'read', otherId)).toBe('404');
    expect(outcome('key', 'manage_nodes', otherId)).toBe('404');
  });

  it('requireAdmin and requirePerson', () => {
    expect(() => access.requireAdmin(principals.get('admin')!)).not.toThrow();
    expect(() => access.requireAdmin(principals.get('owner')!)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => access.requirePerson(principals.get('owner')!)).not.toThrow();
    expect(() => access.requirePerson(principals.get('key')!)).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });

  it('a revoked key no longer authenticates', async () => {
    const root = nodes.get(structureId, 'team-root');
    const created = await keys.mint({ structureId, nodeId: root.id, roleId: root.role_id });
    expect((await access.authenticate(created.token))?.kind).toBe('mcp');
    await keys.revoke(structureId, root.id, created.id);
    expect(await access.authenticate(created.token)).toBeUndefined();
  });
});
