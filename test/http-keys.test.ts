/**
 * MCP node keys over HTTP (API.md §3, §5): mint (token shown once), list without tokens
 * and with last use, revoke at once (401 from that instant, open connections closed),
 * and no token ever stored in plaintext anywhere under `.org/`.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';
import { ISO, UUID } from './helpers/shapes.js';

const MCP_TOKEN = /^org_mcp_[0-9A-Za-z]{32,}$/;

interface Created {
  id: string;
  token: string;
  prefix: string;
  hint: string;
  label: string;
  created_at: string;
}

/** Every file under `dir`, with its content. */
async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    out.set(file, await readFile(file));
  }
  return out;
}

describe('MCP keys', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structure: { id: string; agents: { id: string; role_id: string; parent_id: string | null }[] };
  let roleId: string;
  let otherRoleId: string;
  beforeAll(async () => {
    t = await startInstance();
    owner = await t.createUser('owner@example.com');
    structure = await t.createStructure(owner.token, 'exec-team');
    roleId = structure.agents[1]!.role_id;
    otherRoleId = structure.agents[2]!.role_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const base = (role = roleId) => `/api/org/structures/${structure.id}/agents/${role}`;
  const mint = (payload?: unknown, role = roleId, token = owner.token) =>
    t.server.inject({ method: 'POST', url: `${base(role)}/mcp-key`, headers: t.auth(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  const list = (role = roleId, token = owner.token) => t.server.inject({ method: 'GET', url: `${base(role)}/mcp-keys`, headers: t.auth(token) });
  const revoke = (keyId: string, role = roleId, token = owner.token) =>
    t.server.inject({ method: 'DELETE', url: `${base(role)}/mcp-key/${keyId}`, headers: t.auth(token) });
  const read = (token: string) => t.server.inject({ method: 'GET', url: `/api/org/structures/${structure.id}`, headers: t.auth(token) });

  it('mint: 201 {id, token, prefix, hint, label, created_at}, token org_mcp_ + ≥32 base62, not cached', async () => {
    const response = await mint({ label: 'laptop' });
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const key = response.json<Created>();
    expect(Object.keys(key).sort()).toEqual(['created_at', 'hint', 'id', 'label', 'prefix', 'token']);
    expect(key.id).toMatch(UUID);
    expect(key.token).toMatch(MCP_TOKEN);
    // The fixed prefix of the service description, and the next 4 characters as the hint.
    expect(key.prefix).toBe('org_mcp_');
    expect(key.hint).toBe(key.token.slice(8, 12));
    expect(key.label).toBe('laptop');
    expect(key.created_at).toMatch(ISO);
    // Without a body the label is empty.
    const bare = await mint();
    expect(bare.statusCode).toBe(201);
    expect(bare.json<Created>().label).toBe('');
    expect(bare.json<Created>().token).not.toBe(key.token);
  });

  it('mint: 400 for a bad label, 404 for an unknown node, 415 for a non-JSON body', async () => {
    expectProblem(await mint({ label: 5 }), 400, 'invalid_request');
    expectProblem(await mint({ label: 'x'.repeat(201) }), 400, 'invalid_request');
    expectProblem(await mint({}, 'team-nobody'), 404, 'not_found');
    const text = await t.server.inject({
      method: 'POST',
      url: `${base()}/mcp-key`,
      headers: { ...t.auth(owner.token), 'content-type': 'text/plain' },
      payload: 'label',
    });
    expectProblem(text, 415, 'unsupported_media_type');
  });

  it('list: {keys: [{id, prefix, hint, label, created_at, last_used_at}]}, never a token; last_used_at after use', async () => {
    const created = (await mint({ label: 'listed' }, otherRoleId)).json<Created>();
    const before = await list(otherRoleId);
    expect(before.statusCode).toBe(200);
    expect(before.body).not.toContain(created.token);
    const { keys } = before.json<{ keys: Record<string, unknown>[] }>();
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]!).sort()).toEqual(['created_at', 'hint', 'id', 'label', 'last_used_at', 'prefix']);
    expect(keys[0]).toEqual({ id: created.id, prefix: 'org_mcp_', hint: created.token.slice(8, 12), label: 'listed', created_at: created.created_at, last_used_at: null });
    expect(keys[0]!.hint).toMatch(/^[0-9A-Za-z]{4}$/);

    expect((await read(created.token)).statusCode).toBe(200);
    const after = (await list(otherRoleId)).json<{ keys: { last_used_at: string | null }[] }>();
    expect(after.keys[0]!.last_used_at).toMatch(ISO);
    // Last use reaches the disk on flush.
    await t.app.keys.flushUsage();
    const stored = JSON.parse(await readFile(join(t.home, '.org', 'keys.json'), 'utf8')) as { keys: { id: string; last_used_at: string | null }[] };
    expect(stored.keys.find((key) => key.id === created.id)?.last_used_at).toBe(after.keys[0]!.last_used_at);
    // Keys of one node are not listed under another.
    expect((await list(roleId)).json<{ keys: { id: string }[] }>().keys.map((key) => key.id)).not.toContain(created.id);
  });

  it('no token of any kind is stored in plaintext anywhere under .org/', async () => {
    const tokens = [(await mint({ label: 'secret' })).json<Created>().token, owner.token, (await t.createUser('other@example.com')).token];
    const keysJson = await readFile(join(t.home, '.org', 'keys.json'), 'utf8');
    expect(keysJson).toContain('token_hash');
    const tree = await readTree(join(t.home, '.org'));
    expect(tree.size).toBeGreaterThan(2);
    for (const token of [...tokens, ADMIN_TOKEN]) {
      for (const [file, content] of tree) {
        expect(content.includes(token), `${token.slice(0, 10)}… found in ${file}`).toBe(false);
        // Not even the random part alone.
        expect(content.includes(token.slice(token.lastIndexOf('_') + 1)), file).toBe(false);
      }
    }
  });

  it('revoke: 204, then the key is 401 at once; twice → 404; unknown → 404', async () => {
    const key = (await mint({ label: 'to revoke' })).json<Created>();
    expect((await read(key.token)).statusCode).toBe(200);
    const response = await revoke(key.id);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    const denied = await read(key.token);
    expectProblem(denied, 401, 'unauthorized');
    expect(denied.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await list()).json<{ keys: { id: string }[] }>().keys.map((k) => k.id)).not.toContain(key.id);
    expectProblem(await revoke(key.id), 404, 'not_found');
    expectProblem(await revoke('7c9e6679-7425-40de-944b-e07fc1f90ae7'), 404, 'not_found');
    expectProblem(await revoke('not-a-uuid'), 400, 'invalid_request');
    const stored = JSON.parse(await readFile(join(t.home, '.org', 'keys.json'), 'utf8')) as { keys: { id: string; revoked_at: string | null }[] };
    expect(stored.keys.find((k) => k.id === key.id)?.revoked_at).toMatch(ISO);
  });

  it('revoke through another node of the structure: 404, and the key keeps working', async () => {
    const key = (await mint({ label: 'mine' })).json<Created>();
    expectProblem(await revoke(key.id, otherRoleId), 404, 'not_found');
    expect((await read(key.token)).statusCode).toBe(200);
  });

  it('revoke closes every connection registered for the key with "key revoked"', async () => {
    const key = (await mint({ label: 'streaming' })).json<Created>();
    const other = (await mint({ label: 'bystander' })).json<Created>();
    const closed: string[] = [];
    const otherClosed: string[] = [];
    t.app.connections.register(key.id, (reason) => closed.push(`a:${reason}`));
    t.app.connections.register(key.id, (reason) => closed.push(`b:${reason}`));
    t.app.connections.register(other.id, (reason) => otherClosed.push(reason));
    expect(t.app.connections.count(key.id)).toBe(2);
    expect((await revoke(key.id)).statusCode).toBe(204);
    expect(closed.sort()).toEqual(['a:key revoked', 'b:key revoked']);
    expect(t.app.connections.count(key.id)).toBe(0);
    expect(otherClosed).toEqual([]);
    expect(t.app.connections.count(other.id)).toBe(1);
  });

  it('revocation survives a restart; keys.json parses', async () => {
    const home = t.home;
    const again = await startInstance({ home });
    const minted = await again.server.inject({ method: 'POST', url: `${base()}/mcp-key`, headers: again.auth(owner.token), payload: { label: 'restart' } });
    expect(minted.statusCode, minted.body).toBe(201);
    const key = minted.json<Created>();
    expect((await again.server.inject({ method: 'DELETE', url: `${base()}/mcp-key/${key.id}`, headers: again.auth(owner.token) })).statusCode).toBe(204);
    await again.close();
    const parsed = JSON.parse(await readFile(join(home, '.org', 'keys.json'), 'utf8')) as { keys: { id: string; revoked_at: string | null }[] };
    expect(parsed.keys.find((k) => k.id === key.id)?.revoked_at).toMatch(ISO);
    const third = await startInstance({ home });
    try {
      expectProblem(await third.server.inject({ method: 'GET', url: `/api/org/structures/${structure.id}`, headers: third.auth(key.token) }), 401, 'unauthorized');
    } finally {
      await third.close();
    }
  });
});
