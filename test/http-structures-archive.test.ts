/**
 * Renaming a structure, deleting it into the archive and restoring it, over HTTP (owners
 * only): `PATCH /api/org/structures/{id}` `{name}`, `DELETE /api/org/structures/{id}`,
 * `GET /api/org/structures/archived`, `POST /api/org/structures/{id}/restore`. An archived
 * structure answers 404 to every other request (detail, chat, its node keys) until it is
 * restored, and the archive survives a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';
import { ISO } from './helpers/shapes.js';

interface Summary {
  id: string;
  name: string;
  role: string;
  created_at: string;
  node_count: number;
  archived_at?: string;
}

describe('renaming, deleting and restoring structures', () => {
  let home: string;
  let t: TestInstance;
  let owner: { token: string; id: string };
  let operator: { token: string; id: string };
  let stranger: { token: string; id: string };

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
    t.server.inject({ method, url, headers: t.auth(token), ...(payload ? { payload } : {}) });
  const listed = async (token: string) => (await call('GET', '/api/org/structures', token)).json<{ structures: Summary[] }>().structures;
  const archived = async (token: string) => (await call('GET', '/api/org/structures/archived', token)).json<{ structures: Summary[] }>().structures;
  /** A structure of the owner with an operator member. */
  const shared = async (name: string) => {
    const created = await t.createStructure(owner.token, 'exec-team', name);
    await t.app.members.set(created.id, operator.id, 'operator');
    return created;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-archive-'));
    t = await startInstance({ home });
    owner = await t.createUser('owner@example.com');
    operator = await t.createUser('operator@example.com');
    stranger = await t.createUser('stranger@example.com');
  });
  afterAll(async () => {
    await t?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('an owner renames a structure (200 with its summary); the list shows the new name', async () => {
    const created = await shared('Old name');
    const response = await call('PATCH', `/api/org/structures/${created.id}`, owner.token, { name: '  Finance team ' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ id: created.id, name: 'Finance team', role: 'owner', created_at: created.created_at, node_count: created.agents.length });
    expect((await listed(operator.token)).find((entry) => entry.id === created.id)?.name).toBe('Finance team');
    expect((await call('GET', `/api/org/structures/${created.id}`, owner.token)).json<{ name: string }>().name).toBe('Finance team');
  });

  it('refuses a rename from an operator (403), a stranger (404), and an empty or overlong name (400)', async () => {
    const created = await shared('Guarded');
    expectProblem(await call('PATCH', `/api/org/structures/${created.id}`, operator.token, { name: 'Mine now' }), 403, 'forbidden');
    expectProblem(await call('PATCH', `/api/org/structures/${created.id}`, stranger.token, { name: 'Mine now' }), 404, 'not_found');
    for (const name of ['', 'x'.repeat(201)]) {
      const body = expectProblem(await call('PATCH', `/api/org/structures/${created.id}`, owner.token, { name }), 400, 'invalid_request');
      expect(body.errors).toEqual([{ path: 'body.name', message: expect.any(String) }]);
    }
    expect((await listed(owner.token)).find((entry) => entry.id === created.id)?.name).toBe('Guarded');
  });

  it('an owner deletes a structure into the archive (204): it leaves the lists, and every request to it, its node keys’ included, is 404', async () => {
    const created = await shared('Doomed');
    const key = (await call('POST', `/api/org/structures/${created.id}/agents/exec-cfo/mcp-key`, owner.token, { label: 'laptop' })).json<{ token: string }>();
    expect((await call('GET', `/api/org/structures/${created.id}`, key.token)).statusCode).toBe(200);

    expectProblem(await call('DELETE', `/api/org/structures/${created.id}`, operator.token), 403, 'forbidden');
    expectProblem(await call('DELETE', `/api/org/structures/${created.id}`, stranger.token), 404, 'not_found');
    const deleted = await call('DELETE', `/api/org/structures/${created.id}`, owner.token);
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect(deleted.body).toBe('');

    for (const token of [owner.token, operator.token, ADMIN_TOKEN]) expect((await listed(token)).map((entry) => entry.id)).not.toContain(created.id);
    for (const [method, url, token, payload] of [
      ['GET', `/api/org/structures/${created.id}`, owner.token],
      ['GET', `/api/org/structures/${created.id}/members`, owner.token],
      ['POST', '/api/org/chat/message/sync', owner.token, { structure_id: created.id, role_id: 'exec-cfo', message: 'still there?' }],
      ['GET', `/api/org/structures/${created.id}`, key.token],
      ['PATCH', `/api/org/structures/${created.id}`, owner.token, { name: 'Back' }],
      ['DELETE', `/api/org/structures/${created.id}`, owner.token],
    ] as const) {
      expectProblem(await call(method, url, token, payload), 404, 'not_found');
    }

    // Listed among the archived ones of its owners only.
    const [entry] = (await archived(owner.token)).filter((candidate) => candidate.id === created.id);
    expect(entry).toMatchObject({ id: created.id, name: 'Doomed', role: 'owner', node_count: created.agents.length });
    expect(entry!.archived_at).toMatch(ISO);
    expect((await archived(ADMIN_TOKEN)).map((candidate) => candidate.id)).toContain(created.id);
    expect((await archived(operator.token)).map((candidate) => candidate.id)).not.toContain(created.id);
    expect((await archived(stranger.token)).map((candidate) => candidate.id)).not.toContain(created.id);
  });

  it('an owner restores it (200 with its summary) as it was; restoring a live one is 409, others are refused', async () => {
    const created = await shared('Comeback');
    expect((await call('DELETE', `/api/org/structures/${created.id}`, owner.token)).statusCode).toBe(204);
    expectProblem(await call('POST', `/api/org/structures/${created.id}/restore`, operator.token), 403, 'forbidden');
    expectProblem(await call('POST', `/api/org/structures/${created.id}/restore`, stranger.token), 404, 'not_found');
    const restored = await call('POST', `/api/org/structures/${created.id}/restore`, owner.token);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json()).toEqual({ id: created.id, name: 'Comeback', role: 'owner', created_at: created.created_at, node_count: created.agents.length });
    const detail = await call('GET', `/api/org/structures/${created.id}`, operator.token);
    expect(detail.statusCode).toBe(200);
    expect(detail.json<{ agents: unknown[] }>().agents).toHaveLength(created.agents.length);
    expect((await archived(owner.token)).map((entry) => entry.id)).not.toContain(created.id);
    expectProblem(await call('POST', `/api/org/structures/${created.id}/restore`, owner.token), 409, 'conflict');
  });

  it('keeps names and the archive across a restart, and audits each change', async () => {
    const renamed = await shared('Before restart');
    await call('PATCH', `/api/org/structures/${renamed.id}`, owner.token, { name: 'After restart' });
    const gone = await shared('Archived before restart');
    await call('DELETE', `/api/org/structures/${gone.id}`, owner.token);
    await t.close();
    t = await startInstance({ home });
    expect((await listed(owner.token)).find((entry) => entry.id === renamed.id)?.name).toBe('After restart');
    expect((await listed(owner.token)).map((entry) => entry.id)).not.toContain(gone.id);
    expect((await archived(owner.token)).map((entry) => entry.id)).toContain(gone.id);
    const audit = await call('GET', `/api/org/structures/${renamed.id}/audit`, owner.token);
    expect(audit.json<{ entries: { action: string }[] }>().entries.map((entry) => entry.action)).toContain('structure.rename');
  });
});
