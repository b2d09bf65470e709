/**
 * The invite flow end to end on a listening server (API.md §5): share, read the real
 * `.eml` message from `.org/outbox/`, accept without a bearer, act with the new token;
 * used, replaced and expired invites are 410, and so is one to a workspace deleted into
 * the archive. Time is a mutable fake clock.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../src/core/util/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const DAY = 24 * 60 * 60 * 1000;

/** A clock tests can move forward. */
function fakeClock(start = Date.parse('2026-03-01T09:00:00.000Z')): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => new Date(now),
    advance(ms) {
      now += ms;
    },
  };
}

/** Headers and decoded text body of an RFC 5322 message (quoted-printable or 7bit). */
function parseMessage(raw: string): { headers: Map<string, string>; body: string } {
  const [head = '', ...rest] = raw.replace(/\r\n/g, '\n').split('\n\n');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  let body = rest.join('\n\n');
  if (/quoted-printable/i.test(headers.get('content-transfer-encoding') ?? '')) {
    body = Buffer.from(
      body.replace(/=\n/g, '').replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, body };
}

describe('invite flow on a listening server', () => {
  let t: TestInstance;
  let clock: ReturnType<typeof fakeClock>;
  let owner: { token: string; id: string };
  let structureId: string;
  const seen = new Set<string>();

  beforeAll(async () => {
    clock = fakeClock();
    t = await startInstance({ listen: true, deps: { clock } });
    owner = await t.createUser('owner@example.com');
    structureId = (await t.createStructure(owner.token, 'research-lab', 'Lab')).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };

  /** Shares and returns the parsed message of the new `.eml` file in the outbox. */
  const shareAndRead = async (email: string, role: string) => {
    const shared = await call('POST', `/api/org/structures/${structureId}/share`, { email, role }, owner.token);
    expect(shared.status).toBe(200);
    const outbox = join(t.home, '.org', 'outbox');
    const fresh = (await readdir(outbox)).filter((name) => !seen.has(name));
    expect(fresh).toHaveLength(1);
    const file = fresh[0]!;
    seen.add(file);
    expect(file).toMatch(/\.eml$/);
    const message = parseMessage(await readFile(join(outbox, file), 'utf8'));
    const token = /org_inv_[0-9A-Za-z]+/.exec(message.body)?.[0];
    if (!token) throw new Error(`no invite token in:\n${message.body}`);
    return { invite: (shared.json as { invite: { id: string; expires_at: string } }).invite, message, token };
  };

  it('share → .eml in the outbox → accept without a bearer → act with the new token', async () => {
    const { invite, message, token } = await shareAndRead('newcomer@example.com', 'operator');
    expect(message.headers.get('to')).toBe('newcomer@example.com');
    expect(message.headers.get('from')).toBe('org@localhost');
    expect(message.headers.get('subject')).toBeTruthy();
    expect(Number.isNaN(Date.parse(message.headers.get('date') ?? ''))).toBe(false);
    expect(message.headers.get('message-id')).toMatch(/^<[^>]+@[^>]+>$/);
    expect(token).toMatch(/^org_inv_[0-9A-Za-z]{32,}$/);
    expect(message.body).toContain(`${t.url}/#invite=${token}`);
    expect(message.body).toContain(invite.expires_at);
    expect(invite.expires_at).toBe(new Date(clock.now().getTime() + 14 * DAY).toISOString());

    const accepted = await call('POST', '/api/org/invites/accept', { token });
    expect(accepted.status).toBe(200);
    const body = accepted.json as { structure_id: string; role: string; user: { id: string; email: string }; token: string };
    expect(body).toMatchObject({ structure_id: structureId, role: 'operator', user: { email: 'newcomer@example.com' } });
    expect(body.token).toMatch(/^org_u_[0-9A-Za-z]{32,}$/);

    // The new token works, with the invited role.
    const detail = await call('GET', `/api/org/structures/${structureId}`, undefined, body.token);
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ id: structureId, name: 'Lab' });
    const list = await call('GET', '/api/org/structures', undefined, body.token);
    expect(list.json).toEqual({ structures: [expect.objectContaining({ id: structureId, role: 'operator' })] });
    const parent = (detail.json as { agents: { id: string; parent_id: string | null }[] }).agents.find((node) => node.parent_id === null)!;
    const added = await call('POST', `/api/org/structures/${structureId}/agents`, { role_id: 'lab-intern', label: 'Intern', parent_id: parent.id }, body.token);
    expect(added.status).toBe(201);
    const denied = await call('GET', `/api/org/structures/${structureId}/members`, undefined, body.token);
    expect(denied.status).toBe(403);
    expect(denied.headers.get('content-type')).toMatch(/^application\/problem\+json/);

    // One-time: the second acceptance is 410.
    const again = await call('POST', '/api/org/invites/accept', { token });
    expect(again.status).toBe(410);
    expect(again.json).toMatchObject({ code: 'gone', status: 410 });
  });

  it('re-inviting replaces the pending invite: the old token is 410, the new one works', async () => {
    const first = await shareAndRead('replaced@example.com', 'viewer');
    const second = await shareAndRead('replaced@example.com', 'viewer');
    expect(second.token).not.toBe(first.token);
    const old = await call('POST', '/api/org/invites/accept', { token: first.token });
    expect(old.status).toBe(410);
    expect(old.json).toMatchObject({ code: 'gone' });
    expect((await call('POST', '/api/org/invites/accept', { token: second.token })).status).toBe(200);
  });

  it('an invite is good for 14 days: 410 once they have passed', async () => {
    const late = await shareAndRead('late@example.com', 'viewer');
    const inTime = await shareAndRead('intime@example.com', 'viewer');
    clock.advance(14 * DAY - 60_000);
    expect((await call('POST', '/api/org/invites/accept', { token: inTime.token })).status).toBe(200);
    clock.advance(DAY + 60_000);
    const members = await call('GET', `/api/org/structures/${structureId}/members`, undefined, owner.token);
    const entry = (members.json as { invites: { email: string; status: string }[] }).invites.find((invite) => invite.email === 'late@example.com');
    expect(entry?.status).toBe('expired');
    const expired = await call('POST', '/api/org/invites/accept', { token: late.token });
    expect(expired.status).toBe(410);
    expect(expired.json).toMatchObject({ code: 'gone' });
    expect(String(expired.json?.detail)).toMatch(/expired/);
    const users = (await call('GET', `/api/org/structures/${structureId}/members`, undefined, owner.token)).json as { members: { email: string }[] };
    expect(users.members.map((member) => member.email)).not.toContain('late@example.com');
  });

  it('inviting an address that already has a user: no token in the acceptance; their own token gets access', async () => {
    const existing = await t.createUser('existing@example.com');
    expect((await call('GET', `/api/org/structures/${structureId}`, undefined, existing.token)).status).toBe(404);
    const { token } = await shareAndRead('Existing@Example.com', 'viewer');
    const accepted = await call('POST', '/api/org/invites/accept', { token });
    expect(accepted.status).toBe(200);
    expect(accepted.json).not.toHaveProperty('token');
    expect(accepted.json).toEqual({ structure_id: structureId, role: 'viewer', user: { id: existing.id, email: 'existing@example.com' } });
    expect((await call('GET', `/api/org/structures/${structureId}`, undefined, existing.token)).status).toBe(200);
    const write = await call('POST', `/api/org/structures/${structureId}/agents`, { role_id: 'lab-viewer', label: 'No' }, existing.token);
    expect(write.status).toBe(403);
  });

  it('an invite can be read before it is accepted: structure, role, address, sender, expiry and whether the address has a user', async () => {
    const fresh = await shareAndRead('preview-new@example.com', 'operator');
    const preview = await call('POST', '/api/org/invites/preview', { token: fresh.token });
    expect(preview.status).toBe(200);
    expect(preview.headers.get('cache-control')).toBe('no-store');
    expect(preview.json).toEqual({
      structure_id: structureId,
      structure_name: 'Lab',
      role: 'operator',
      email: 'preview-new@example.com',
      invited_by: 'owner@example.com',
      expires_at: fresh.invite.expires_at,
      existing_user: false,
    });
    // Reading it changes nothing: it still accepts, once.
    expect((await call('POST', '/api/org/invites/accept', { token: fresh.token })).status).toBe(200);
    expect((await call('POST', '/api/org/invites/preview', { token: fresh.token })).status).toBe(410);

    await t.createUser('preview-known@example.com');
    const known = await shareAndRead('preview-known@example.com', 'viewer');
    expect((await call('POST', '/api/org/invites/preview', { token: known.token })).json).toMatchObject({ role: 'viewer', existing_user: true });
    const unknown = await call('POST', '/api/org/invites/preview', { token: 'org_inv_00000000000000000000000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'not_found' });
  });

  it('an invite to a workspace deleted into the archive is 410 with the reason, adds no one, and works again once it is restored', async () => {
    const lab = (await t.createStructure(owner.token, 'blank', 'Side project')).id;
    const shared = await call('POST', `/api/org/structures/${lab}/share`, { email: 'archived-invitee@example.com', role: 'operator' }, owner.token);
    expect(shared.status).toBe(200);
    const outbox = join(t.home, '.org', 'outbox');
    const fresh = (await readdir(outbox)).filter((name) => !seen.has(name));
    fresh.forEach((name) => seen.add(name));
    const token = /org_inv_[0-9A-Za-z]+/.exec(parseMessage(await readFile(join(outbox, fresh[0]!), 'utf8')).body)![0];
    expect((await call('DELETE', `/api/org/structures/${lab}`, undefined, owner.token)).status).toBe(204);

    const reason = 'the workspace "Side project" this invite is for was deleted; the invite works again if an owner of it restores the workspace';
    for (const path of ['/api/org/invites/preview', '/api/org/invites/accept']) {
      const refused = await call('POST', path, { token });
      expect(refused.status, path).toBe(410);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.json).toMatchObject({ code: 'gone', detail: reason });
    }
    // Nobody was created or added.
    expect(await t.app.users.byEmail('archived-invitee@example.com')).toBeUndefined();
    expect((await call('GET', `/api/org/structures/${lab}/members`, undefined, owner.token)).status).toBe(404);

    expect((await call('POST', `/api/org/structures/${lab}/restore`, undefined, owner.token)).status).toBe(200);
    const members = (await call('GET', `/api/org/structures/${lab}/members`, undefined, owner.token)).json as { members: { email: string }[] };
    expect(members.members.map((member) => member.email)).toEqual(['owner@example.com']);
    const accepted = await call('POST', '/api/org/invites/accept', { token });
    expect(accepted.status).toBe(200);
    expect(accepted.json).toMatchObject({ structure_id: lab, role: 'operator', user: { email: 'archived-invitee@example.com' } });
  });

  it('the members list shows members with their roles and pending invites', async () => {
    await shareAndRead('waiting@example.com', 'operator');
    const response = await call('GET', `/api/org/structures/${structureId}/members`, undefined, owner.token);
    expect(response.status).toBe(200);
    const body = response.json as { members: { user_id: string; email: string; role: string }[]; invites: { email: string; role: string; status: string }[] };
    expect(body.members).toEqual(
      expect.arrayContaining([
        { user_id: owner.id, email: 'owner@example.com', role: 'owner' },
        expect.objectContaining({ email: 'newcomer@example.com', role: 'operator' }),
        expect.objectContaining({ email: 'existing@example.com', role: 'viewer' }),
      ]),
    );
    expect(body.invites).toEqual(expect.arrayContaining([expect.objectContaining({ email: 'waiting@example.com', role: 'operator', status: 'pending' })]));
    // Accepted and replaced invites are not listed as open.
    expect(body.invites.map((invite) => invite.email)).not.toContain('newcomer@example.com');
    expect(body.invites.filter((invite) => invite.email === 'replaced@example.com')).toEqual([]);
  });
});
