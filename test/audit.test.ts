/**
 * The audit log over real HTTP: every state-changing action (structures, nodes, keys,
 * invites and their acceptance, skills, webhooks, users) leaves one entry naming who,
 * what, which structure and target, when, from where (address, user agent) and the
 * request id, written before the answer is sent; failed actions leave none. Owners read
 * their structure's entries, the administrator all of them, with filters and paging;
 * nothing edits an entry; a token's first use from a new client is an entry; entries
 * survive a restart.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditPage } from '../src/core/schemas/index.js';
import { inviteTokenFor } from './helpers/outbox.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

const SKILL = {
  slug: 'chase-late-invoices',
  frontmatter: { type: 'skill', name: 'Chase late invoices', category: 'finance', difficulty: 'low', tags: ['invoices'], status: 'complete', summary: 'Remind customers who pay late.' },
  body: '## [remind] Step 1: Send a reminder\n\nWrite to the customer.\n',
};

describe('the audit log', () => {
  let t: TestInstance;
  let home: string;
  let owner: { token: string; id: string };
  let operator: { token: string; id: string };
  let outsider: { token: string; id: string };
  let structureId: string;

  /** A real HTTP request with a user agent of its own. */
  const api = async <T = Record<string, unknown>>(method: string, path: string, token: string | null, body?: unknown, agent = 'audit-test/1'): Promise<Answer<T>> => {
    const headers: Record<string, string> = { 'user-agent': agent };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${t.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
  };
  const audit = async (query = '', token = owner.token) => api<AuditPage>('GET', `/api/org/structures/${structureId}/audit${query}`, token);

  beforeAll(async () => {
    t = await startInstance({ listen: true });
    home = t.home;
    owner = await t.createUser('owner@example.com');
    operator = await t.createUser('operator@example.com');
    outsider = await t.createUser('outsider@example.com');
    const created = await api<{ id: string }>('POST', '/api/org/structures', owner.token, { name: 'Acme', template: 'exec-team' });
    expect(created.status).toBe(201);
    structureId = created.body.id;
    await t.app.members.set(structureId, operator.id, 'operator');
  });
  afterAll(async () => {
    await t.close();
    await rm(home, { recursive: true, force: true });
  });

  it('records each action with who, what, target, structure, address, user agent and request id', async () => {
    const s = `/api/org/structures/${structureId}`;
    const root = (await api<{ agents: { id: string; role_id: string }[] }>('GET', s, owner.token)).body.agents[0]!;
    expect((await api('POST', `${s}/agents`, owner.token, { role_id: 'ops-temp', label: 'Temp', parent_id: root.id })).status).toBe(201);
    expect((await api('PATCH', `${s}/agents/ops-temp`, operator.token, { label: 'Temporary' }, 'operator-browser/2')).status).toBe(200);
    expect((await api('DELETE', `${s}/agents/ops-temp`, owner.token)).status).toBe(204);
    expect((await api('POST', `${s}/agents/ops-temp/restore`, owner.token)).status).toBe(201);
    const key = await api<{ id: string; token: string }>('POST', `${s}/agents/exec-cfo/mcp-key`, owner.token, { label: 'laptop' });
    expect(key.status).toBe(201);
    expect((await api('DELETE', `${s}/agents/exec-cfo/mcp-key/${key.body.id}`, owner.token)).status).toBe(204);
    expect((await api('POST', '/api/org/knowledge/skills', operator.token, { structure_id: structureId, ...SKILL })).status).toBe(201);
    expect((await api('DELETE', `/api/org/knowledge/skills/${SKILL.slug}?structure_id=${structureId}`, operator.token)).status).toBe(204);
    expect((await api('POST', `/api/org/knowledge/skills/${SKILL.slug}/restore?structure_id=${structureId}`, operator.token)).status).toBe(200);
    const hook = await api<{ id: string }>('POST', `${s}/webhooks`, owner.token, { url: 'https://hooks.example.com/org', events: ['run.completed'] });
    expect(hook.status).toBe(201);
    expect((await api('DELETE', `${s}/webhooks/${hook.body.id}`, owner.token)).status).toBe(204);

    const page = await audit('?limit=500');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const ofStructure = page.body.entries.filter((entry) => entry.action !== 'token.new_client');
    // Newest first: read back in the order the actions were made.
    expect(ofStructure.map((entry) => [entry.action, entry.target?.type, entry.target?.id]).reverse()).toEqual([
      ['structure.create', 'structure', structureId],
      ['node.add', 'node', 'ops-temp'],
      ['node.update', 'node', 'ops-temp'],
      ['node.delete', 'node', 'ops-temp'],
      ['node.restore', 'node', 'ops-temp'],
      ['key.mint', 'key', key.body.id],
      ['key.revoke', 'key', key.body.id],
      ['skill.write', 'skill', SKILL.slug],
      ['skill.delete', 'skill', SKILL.slug],
      ['skill.restore', 'skill', SKILL.slug],
      ['webhook.create', 'webhook', hook.body.id],
      ['webhook.delete', 'webhook', hook.body.id],
    ]);
    for (const entry of ofStructure) {
      expect(entry.structure_id).toBe(structureId);
      expect(entry.ip).toBe('127.0.0.1');
      expect(entry.request_id).not.toBe('');
      expect(Date.parse(entry.at)).not.toBeNaN();
    }
    const update = ofStructure.find((entry) => entry.action === 'node.update')!;
    expect(update.actor).toEqual({ kind: 'user', id: operator.id, email: 'operator@example.com' });
    expect(update.user_agent).toBe('operator-browser/2');
    expect(update.status).toBe(200);
    const created = ofStructure.find((entry) => entry.action === 'structure.create')!;
    expect(created.actor).toEqual({ kind: 'user', id: owner.id, email: 'owner@example.com' });
    expect(created.status).toBe(201);
    // Request ids differ per action; no token ever reaches the log.
    expect(new Set(ofStructure.map((entry) => entry.request_id)).size).toBe(ofStructure.length);
    const file = await readFile(join(home, '.org', 'audit.jsonl'), 'utf8');
    expect(file).not.toContain(owner.token);
    expect(file).not.toContain(key.body.token);
  });

  it('records an invite and its acceptance by the person it signs in, and nothing for a failed action', async () => {
    const s = `/api/org/structures/${structureId}`;
    const shared = await api<{ invite: { id: string } }>('POST', `${s}/share`, owner.token, { email: 'guest@example.com', role: 'viewer' });
    expect(shared.status).toBe(200);
    const invite = await inviteTokenFor(home, 'guest@example.com');
    const accepted = await api<{ user: { id: string } }>('POST', '/api/org/invites/accept', null, { token: invite }, 'guest-phone/3');
    expect(accepted.status).toBe(200);
    // Failures leave nothing: a second root node (400) and an unknown node (404).
    expect((await api('POST', `${s}/agents`, owner.token, { role_id: 'exec-cfo', label: 'Again', parent_id: null })).status).toBeGreaterThanOrEqual(400);
    expect((await api('DELETE', `${s}/agents/no-such`, owner.token)).status).toBe(404);

    const { entries } = (await audit('?action=member.invite,member.join')).body;
    expect(entries.map((entry) => entry.action)).toEqual(['member.join', 'member.invite']);
    expect(entries[1]).toMatchObject({ target: { type: 'invite', id: shared.body.invite.id }, actor: { id: owner.id } });
    expect(entries[0]).toMatchObject({
      structure_id: structureId,
      actor: { kind: 'user', id: accepted.body.user.id, email: 'guest@example.com' },
      target: { type: 'member', id: accepted.body.user.id },
      user_agent: 'guest-phone/3',
    });
    // Role changes, removals and revoked invites.
    const guest = accepted.body.user.id;
    expect((await api('PATCH', `${s}/members/${guest}`, owner.token, { role: 'operator' })).status).toBe(200);
    expect((await api('DELETE', `${s}/members/${guest}`, owner.token)).status).toBe(204);
    const second = await api<{ invite: { id: string } }>('POST', `${s}/share`, owner.token, { email: 'later@example.com', role: 'viewer' });
    expect((await api('DELETE', `${s}/invites/${second.body.invite.id}`, owner.token)).status).toBe(204);
    const changes = (await audit('?action=member.role_change,member.remove,invite.revoke')).body.entries;
    expect(changes.map((entry) => [entry.action, entry.target?.type, entry.target?.id])).toEqual([
      ['invite.revoke', 'invite', second.body.invite.id],
      ['member.remove', 'member', guest],
      ['member.role_change', 'member', guest],
    ]);
    const nodes = (await audit('?action=node.add,node.delete')).body.entries;
    expect(nodes.map((entry) => entry.action)).toEqual(['node.delete', 'node.add']);
  });

  it('records a skill import that writes, and its dry run as a dry run', async () => {
    const exported = await fetch(`${t.url}/api/org/knowledge/skills/${SKILL.slug}/export?structure_id=${structureId}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(exported.status).toBe(200);
    const zip = Buffer.from(await exported.arrayBuffer());
    const importing = (dryRun: boolean) =>
      fetch(`${t.url}/api/org/knowledge/import?structure_id=${structureId}&dry_run=${dryRun}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/zip', 'x-request-id': `import-${dryRun ? 'dry' : 'real'}-7` },
        body: zip,
      });
    expect((await importing(true)).status).toBe(200);
    expect((await audit('?action=skill.import')).body.entries).toEqual([]);
    expect((await audit('?action=skill.import_dry_run')).body.entries).toEqual([expect.objectContaining({ structure_id: structureId, status: 200, request_id: 'import-dry-7' })]);
    expect((await importing(false)).status).toBe(200);
    const entries = (await audit('?action=skill.import')).body.entries;
    expect(entries).toHaveLength(1);
    // The caller's X-Request-Id names the entry, so a proxy's logs and the audit meet.
    expect(entries[0]).toMatchObject({ actor: { id: owner.id }, structure_id: structureId, status: 200, request_id: 'import-real-7' });
  });

  it('filters by action prefix, actor and time, and pages with next_before', async () => {
    const skills = (await audit('?action=skill.')).body.entries;
    expect(skills.map((entry) => entry.action)).toEqual(['skill.import', 'skill.import_dry_run', 'skill.restore', 'skill.delete', 'skill.write']);
    const byEmail = (await audit('?actor=operator@example.com')).body.entries.filter((entry) => entry.action !== 'token.new_client');
    expect(byEmail.map((entry) => entry.action)).toEqual(['skill.restore', 'skill.delete', 'skill.write', 'node.update']);
    expect((await audit(`?actor=${operator.id}`)).body.entries).toEqual((await audit('?actor=operator@example.com')).body.entries);

    const all = (await audit('?limit=500')).body.entries;
    const pages: AuditEntry[][] = [];
    let query = '?limit=4';
    for (;;) {
      const page = (await audit(query)).body;
      pages.push(page.entries);
      if (page.next_before === null) break;
      expect(page.entries).toHaveLength(4);
      query = `?limit=4&before=${page.next_before}`;
    }
    expect(pages.flat()).toEqual(all);
    expect(pages.length).toBe(Math.ceil(all.length / 4));

    const middle = all[Math.floor(all.length / 2)]!;
    const since = (await audit(`?limit=500&since=${encodeURIComponent(middle.at)}`)).body.entries;
    expect(since.every((entry) => entry.at >= middle.at)).toBe(true);
    expect(since.map((entry) => entry.id)).toContain(middle.id);
    const until = (await audit(`?limit=500&until=${encodeURIComponent(middle.at)}`)).body.entries;
    expect(until.every((entry) => entry.at < middle.at)).toBe(true);
    expect(since.length + until.length).toBe(all.length);
  });

  it('answers owners only for a structure, the administrator for the instance, and refuses bad filters', async () => {
    expect((await audit('', operator.token)).status).toBe(403);
    expect((await audit('', outsider.token)).status).toBe(404);
    expect((await api('GET', '/api/org/audit', owner.token)).status).toBe(403);
    const bad = await audit('?action=skill.exploded');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(bad.body)).toContain('skill.exploded');
    expect((await audit('?limit=0')).status).toBe(400);
    expect((await audit('?before=not-an-id')).status).toBe(400);

    const instance = await api<AuditPage>('GET', '/api/org/audit?limit=500', ADMIN_TOKEN);
    expect(instance.status).toBe(200);
    const users = instance.body.entries.filter((entry) => entry.action === 'user.create');
    expect(users.map((entry) => entry.target?.id).sort()).toEqual([owner.id, operator.id, outsider.id].sort());
    expect(users[0]!.actor).toEqual({ kind: 'admin', id: 'admin', email: null });
    expect(users[0]!.structure_id).toBeNull();
    expect(instance.body.entries.filter((entry) => entry.structure_id === structureId)).toEqual((await audit('?limit=500')).body.entries);
  });

  it('cannot be edited through the API', async () => {
    const before = (await api<AuditPage>('GET', '/api/org/audit?limit=500', ADMIN_TOKEN)).body.entries;
    const entry = before[0]!;
    for (const [method, path] of [
      ['POST', '/api/org/audit'],
      ['DELETE', '/api/org/audit'],
      ['DELETE', `/api/org/audit/${entry.id}`],
      ['PATCH', `/api/org/structures/${structureId}/audit`],
      ['PUT', `/api/org/structures/${structureId}/audit`],
    ] as const) {
      const answer = await api(method, path, ADMIN_TOKEN, method === 'DELETE' ? undefined : { action: 'user.create' });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect((await api<AuditPage>('GET', '/api/org/audit?limit=500', ADMIN_TOKEN)).body.entries).toEqual(before);
  });

  it('records a token’s first use from each new client, once', async () => {
    const fresh = await t.createUser('fresh@example.com');
    const mine = async () =>
      (await api<AuditPage>('GET', `/api/org/audit?action=token.new_client&actor=${fresh.id}`, ADMIN_TOKEN)).body.entries;
    expect(await mine()).toEqual([]);
    expect((await api('GET', '/api/org/structures', fresh.token, undefined, 'laptop-cli/1')).status).toBe(200);
    expect((await api('GET', '/api/org/structures', fresh.token, undefined, 'laptop-cli/1')).status).toBe(200);
    expect((await api('GET', '/api/org/whoami', fresh.token, undefined, 'laptop-cli/1')).status).toBe(200);
    const once = await mine();
    expect(once).toHaveLength(1);
    expect(once[0]).toMatchObject({ action: 'token.new_client', actor: { kind: 'user', id: fresh.id }, target: { type: 'token', id: fresh.id }, user_agent: 'laptop-cli/1', ip: '127.0.0.1' });
    expect((await api('GET', '/api/org/structures', fresh.token, undefined, 'phone-app/7')).status).toBe(200);
    expect((await mine()).map((entry) => entry.user_agent)).toEqual(['phone-app/7', 'laptop-cli/1']);

    // A node key's first use is an entry of its structure, which its owners read.
    const key = await api<{ id: string; token: string }>('POST', `/api/org/structures/${structureId}/agents/exec-ceo/mcp-key`, owner.token, { label: 'agent' });
    expect((await api('GET', '/api/org/whoami', key.body.token, undefined, 'agent-runner/1')).status).toBe(200);
    const keyUse = (await audit('?action=token.new_client')).body.entries.find((entry) => entry.actor.id === key.body.id);
    expect(keyUse).toMatchObject({ structure_id: structureId, actor: { kind: 'mcp', id: key.body.id, email: null }, user_agent: 'agent-runner/1' });
  });

  it('notices a new client on a connection that already carried a known one', async () => {
    const first = await t.createUser('first@example.com');
    const second = await t.createUser('second@example.com');
    const seen = async (id: string) =>
      (await api<AuditPage>('GET', `/api/org/audit?action=token.new_client&actor=${id}`, ADMIN_TOKEN)).body.entries.map((entry) => entry.user_agent);
    // One keep-alive connection: every request below travels on the same socket.
    const connection = new Client(t.url, { pipelining: 1 });
    const sockets = new Set<number>();
    const get = async (token: string, agent: string) => {
      const answer = await connection.request({ method: 'GET', path: '/api/org/whoami', headers: { authorization: `Bearer ${token}`, 'user-agent': agent } });
      await answer.body.text();
      expect(answer.statusCode).toBe(200);
    };
    connection.on('connect', () => sockets.add(sockets.size));
    try {
      await get(first.token, 'desk/1');
      await get(first.token, 'desk/1');
      await get(second.token, 'desk/1');
      await get(first.token, 'desk/2');
      await get(first.token, 'desk/1');
    } finally {
      await connection.close();
    }
    expect(sockets.size).toBe(1);
    expect(await seen(first.id)).toEqual(['desk/2', 'desk/1']);
    expect(await seen(second.id)).toEqual(['desk/1']);
  });

  it('keeps every entry across a restart, and knows the clients it has seen', async () => {
    const before = (await api<AuditPage>('GET', '/api/org/audit?limit=500', ADMIN_TOKEN)).body.entries;
    await t.server.close();
    await t.app.close();
    t = await startInstance({ listen: true, home });
    expect((await api<AuditPage>('GET', '/api/org/audit?limit=500', ADMIN_TOKEN)).body.entries).toEqual(before);
    // The same client as before the restart is not new; the entries are unchanged by using it.
    expect((await api('GET', '/api/org/structures', owner.token)).status).toBe(200);
    expect((await api<AuditPage>('GET', '/api/org/audit?limit=500', ADMIN_TOKEN)).body.entries).toEqual(before);
  });
});
