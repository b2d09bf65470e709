/**
 * Sharing routes over HTTP (API.md §5): share, members and invite acceptance, each with
 * its exact response shape and the errors the contract names. The whole flow through a
 * real outbox message is in http-invites.test.ts.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailMessage } from '../src/core/mail/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';
import { ISO, UUID } from './helpers/shapes.js';
import { createMemoryOutbox, type MemoryOutbox } from './support/memory-outbox.js';

const DAY = 24 * 60 * 60 * 1000;

const tokenIn = (message: MailMessage | undefined): string => {
  const match = /org_inv_[0-9A-Za-z]+/.exec(message?.text ?? '');
  if (!match) throw new Error('no invite token in the message');
  return match[0];
};

describe('members and invites', () => {
  let t: TestInstance;
  let mailer: MemoryOutbox;
  let owner: { token: string; id: string };
  let stranger: { token: string; id: string };
  let structureId: string;
  beforeAll(async () => {
    mailer = createMemoryOutbox();
    t = await startInstance({ deps: { mailer } });
    owner = await t.createUser('owner@example.com');
    stranger = await t.createUser('stranger@example.com');
    structureId = (await t.createStructure(owner.token, 'personal', 'Shared')).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const share = (payload: unknown, token = owner.token, id = structureId) =>
    t.server.inject({ method: 'POST', url: `/api/org/structures/${id}/share`, headers: t.auth(token), payload: payload as object });
  const members = (token = owner.token, id = structureId) => t.server.inject({ method: 'GET', url: `/api/org/structures/${id}/members`, headers: t.auth(token) });
  const accept = (token: unknown) => t.server.inject({ method: 'POST', url: '/api/org/invites/accept', payload: { token } as object });

  describe('POST /share', () => {
    it('200 {invite: {id, email, role, status: "pending", created_at, expires_at}} expiring in 14 days, and mails a token', async () => {
      const response = await share({ email: 'New.Person@Example.com', role: 'operator' });
      expect(response.statusCode).toBe(200);
      const body = response.json<{ invite: Record<string, string> }>();
      expect(Object.keys(body)).toEqual(['invite']);
      expect(Object.keys(body.invite).sort()).toEqual(['created_at', 'email', 'expires_at', 'id', 'role', 'status']);
      expect(body.invite).toMatchObject({ email: 'new.person@example.com', role: 'operator', status: 'pending' });
      expect(body.invite.id).toMatch(UUID);
      expect(body.invite.created_at).toMatch(ISO);
      expect(body.invite.expires_at).toMatch(ISO);
      expect(Date.parse(body.invite.expires_at!) - Date.parse(body.invite.created_at!)).toBe(14 * DAY);
      const message = mailer.sent.at(-1);
      expect(message?.to).toBe('new.person@example.com');
      expect(tokenIn(message)).toMatch(/^org_inv_[0-9A-Za-z]{32,}$/);
      expect(response.body).not.toContain(tokenIn(message));
      // Only the hash of the invite token is stored.
      const invites = await readFile(join(t.home, '.org', 'invites.json'), 'utf8');
      expect(invites).not.toContain(tokenIn(message));
      expect(invites).toContain('token_hash');
    });

    it('400 for a bad e-mail or role, each named in errors[]', async () => {
      for (const [payload, path] of [
        [{ email: 'nope', role: 'viewer' }, 'body.email'],
        [{ role: 'viewer' }, 'body.email'],
        [{ email: 'a@example.com', role: 'admin' }, 'body.role'],
        [{ email: 'a@example.com' }, 'body.role'],
      ] as const) {
        const body = expectProblem(await share(payload), 400, 'invalid_request');
        expect(body.errors).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
      }
    });

    it('404 for a non-member or unknown structure, 401 without a token, 415 for a non-JSON body', async () => {
      expectProblem(await share({ email: 'a@example.com', role: 'viewer' }, stranger.token), 404, 'not_found');
      expectProblem(await share({ email: 'a@example.com', role: 'viewer' }, owner.token, '7c9e6679-7425-40de-944b-e07fc1f90ae7'), 404, 'not_found');
      const anonymous = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structureId}/share`, payload: { email: 'a@example.com', role: 'viewer' } });
      expectProblem(anonymous, 401, 'unauthorized');
      expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
      const text = await t.server.inject({
        method: 'POST',
        url: `/api/org/structures/${structureId}/share`,
        headers: { ...t.auth(owner.token), 'content-type': 'text/plain' },
        payload: 'a@example.com viewer',
      });
      expectProblem(text, 415, 'unsupported_media_type');
    });

    it('503 when the e-mail cannot be sent, without leaking the transport error', async () => {
      mailer.failure = new Error('connect ECONNREFUSED 10.0.0.1:25 /etc/secret');
      try {
        const response = await share({ email: 'unreachable@example.com', role: 'viewer' });
        const body = expectProblem(response, 503, 'unavailable');
        expect(String(body.detail)).not.toMatch(/ECONNREFUSED|10\.0\.0\.1|secret/);
      } finally {
        mailer.failure = undefined;
      }
    });
  });

  describe('GET /members', () => {
    it('{members: [{user_id, email, role}], invites: [{id, email, role, status, expires_at}]}', async () => {
      const s = await t.createStructure(owner.token, 'blank', 'Members');
      const viewer = await t.createUser('viewer@example.com');
      await t.app.members.set(s.id, viewer.id, 'viewer');
      const invite = (await share({ email: 'pending@example.com', role: 'viewer' }, owner.token, s.id)).json<{ invite: { id: string; expires_at: string } }>().invite;
      const response = await members(owner.token, s.id);
      expect(response.statusCode).toBe(200);
      const body = response.json<{ members: Record<string, string>[]; invites: Record<string, string>[] }>();
      expect(Object.keys(body).sort()).toEqual(['invites', 'members']);
      expect(body.members).toEqual([
        { user_id: owner.id, email: 'owner@example.com', role: 'owner' },
        { user_id: viewer.id, email: 'viewer@example.com', role: 'viewer' },
      ]);
      expect(body.invites).toHaveLength(1);
      expect(Object.keys(body.invites[0]!).sort()).toEqual(['email', 'expires_at', 'id', 'role', 'status']);
      expect(body.invites[0]).toEqual({ id: invite.id, email: 'pending@example.com', role: 'viewer', status: 'pending', expires_at: invite.expires_at });
    });

    it('404 for a non-member, 403 for a viewer and an operator', async () => {
      const s = await t.createStructure(owner.token, 'blank', 'Members guarded');
      expectProblem(await members(stranger.token, s.id), 404, 'not_found');
      for (const role of ['viewer', 'operator'] as const) {
        const user = await t.createUser(`${role}-members@example.com`);
        await t.app.members.set(s.id, user.id, role);
        expectProblem(await members(user.token, s.id), 403, 'forbidden');
        expectProblem(await share({ email: 'x@example.com', role: 'viewer' }, user.token, s.id), 403, 'forbidden');
      }
    });
  });

  describe('POST /invites/accept', () => {
    it('200 {structure_id, role, user: {id, email}, token} for a new address; the user is a member with that role', async () => {
      await share({ email: 'joiner@example.com', role: 'viewer' });
      const inviteToken = tokenIn(mailer.sent.at(-1));
      const response = await accept(inviteToken);
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json<{ structure_id: string; role: string; user: { id: string; email: string }; token?: string }>();
      expect(Object.keys(body).sort()).toEqual(['role', 'structure_id', 'token', 'user']);
      expect(Object.keys(body.user).sort()).toEqual(['email', 'id']);
      expect(body).toMatchObject({ structure_id: structureId, role: 'viewer', user: { email: 'joiner@example.com', id: expect.stringMatching(UUID) } });
      expect(body.token).toMatch(/^org_u_[0-9A-Za-z]{32,}$/);
      expect(t.app.members.roleOf(structureId, body.user.id)).toBe('viewer');
      expectProblem(await accept(inviteToken), 410, 'gone');
    });

    it('404 for an unknown token, 400 for a missing or non-string token, 415 for a non-JSON body', async () => {
      expectProblem(await accept('org_inv_00000000000000000000000000000000000000'), 404, 'not_found');
      const missing = expectProblem(await t.server.inject({ method: 'POST', url: '/api/org/invites/accept', payload: {} }), 400, 'invalid_request');
      expect(missing.errors).toEqual([{ path: 'body.token', message: expect.any(String) }]);
      expectProblem(await accept(12345), 400, 'invalid_request');
      const text = await t.server.inject({ method: 'POST', url: '/api/org/invites/accept', headers: { 'content-type': 'text/plain' }, payload: 'org_inv_x' });
      expectProblem(text, 415, 'unsupported_media_type');
    });

    it('410 for a replaced invite; only the newest one works', async () => {
      await share({ email: 'twice@example.com', role: 'viewer' });
      const first = tokenIn(mailer.sent.at(-1));
      await share({ email: 'twice@example.com', role: 'operator' });
      const second = tokenIn(mailer.sent.at(-1));
      expect(second).not.toBe(first);
      const pending = (await members()).json<{ invites: { email: string; role: string }[] }>().invites.filter((i) => i.email === 'twice@example.com');
      expect(pending).toEqual([expect.objectContaining({ role: 'operator', status: 'pending' })]);
      expectProblem(await accept(first), 410, 'gone');
      const ok = await accept(second);
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ role: 'operator' });
    });
  });

  it('the outbox stays empty when a mailer is injected (nothing written beside it)', async () => {
    expect(await readdir(join(t.home, '.org', 'outbox'))).toEqual([]);
  });
});
