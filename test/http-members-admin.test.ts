/**
 * Managing people over HTTP (API.md §9): change a member's role, remove a member, revoke
 * an invite — owner only, on the scope the access layer resolved, and never leaving a
 * structure without an owner — and POST /structures without a template.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mailer, MailMessage } from '../src/core/mail/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';
import { UUID } from './helpers/shapes.js';

function memoryMailer(): Mailer & { sent: MailMessage[] } {
  const mailer = {
    sent: [] as MailMessage[],
    async send(message: MailMessage) {
      mailer.sent.push(message);
      return { messageId: `<${mailer.sent.length}@test>` };
    },
    async close() {},
  };
  return mailer;
}

describe('members and invites administration', () => {
  let t: TestInstance;
  let mailer: ReturnType<typeof memoryMailer>;
  let owner: { token: string; id: string };
  let ana: { token: string; id: string };
  let bo: { token: string; id: string };
  let structureId: string;
  let otherId: string;

  const call = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, token = owner.token, payload?: object) =>
    t.server.inject({ method, url, headers: t.auth(token), ...(payload ? { payload } : {}) });
  const memberUrl = (userId: string, id = structureId) => `/api/org/structures/${id}/members/${userId}`;
  const members = async (id = structureId) => (await call('GET', `/api/org/structures/${id}/members`)).json<{ members: { user_id: string; role: string }[]; invites: { id: string; email: string }[] }>();

  /** Invites `email` with `role` and accepts with the mailed token. */
  async function join(email: string, role: string, id = structureId): Promise<void> {
    expect((await call('POST', `/api/org/structures/${id}/share`, owner.token, { email, role })).statusCode).toBe(200);
    const token = /org_inv_[0-9A-Za-z]+/.exec(mailer.sent.at(-1)!.text)![0];
    expect((await t.server.inject({ method: 'POST', url: '/api/org/invites/accept', payload: { token } })).statusCode).toBe(200);
  }

  beforeAll(async () => {
    mailer = memoryMailer();
    t = await startInstance({ deps: { mailer } });
    owner = await t.createUser('owner@example.com');
    ana = await t.createUser('ana@example.com');
    bo = await t.createUser('bo@example.com');
    structureId = (await t.createStructure(owner.token, 'personal', 'People')).id;
    otherId = (await t.createStructure(owner.token, 'personal', 'Other')).id;
    await join('ana@example.com', 'operator');
    await join('bo@example.com', 'viewer');
  });
  afterAll(() => t.close());

  describe('PATCH …/members/{user_id}', () => {
    it('changes a role and answers the member', async () => {
      const response = await call('PATCH', memberUrl(ana.id), owner.token, { role: 'owner' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ user_id: ana.id, email: 'ana@example.com', role: 'owner' });
      expect((await members()).members.find((m) => m.user_id === ana.id)?.role).toBe('owner');
      // Two owners: one may step down.
      expect((await call('PATCH', memberUrl(ana.id), owner.token, { role: 'operator' })).statusCode).toBe(200);
    });

    it('never demotes the last owner (409), and says so', async () => {
      const body = expectProblem(await call('PATCH', memberUrl(owner.id), owner.token, { role: 'viewer' }), 409, 'conflict');
      expect(body.detail).toBe('the last owner of a structure cannot be demoted: make another member owner first');
      expect((await members()).members.find((m) => m.user_id === owner.id)?.role).toBe('owner');
    });

    it('owner only: 403 for an operator, 404 for a non-member, 404 for a user who is not a member', async () => {
      expectProblem(await call('PATCH', memberUrl(bo.id), ana.token, { role: 'operator' }), 403, 'forbidden');
      const stranger = await t.createUser('stranger@example.com');
      expectProblem(await call('PATCH', memberUrl(bo.id), stranger.token, { role: 'operator' }), 404, 'not_found');
      expectProblem(await call('PATCH', memberUrl(stranger.id), owner.token, { role: 'operator' }), 404, 'not_found');
    });

    it('a bad role is a 400 in words, not a schema path', async () => {
      const body = expectProblem(await call('PATCH', memberUrl(bo.id), owner.token, { role: 'admin' }), 400, 'invalid_request');
      expect(body.detail).toBe('role must be one of viewer, operator, owner');
      expect(body.errors).toEqual([{ path: 'body.role', message: 'must be one of viewer, operator, owner' }]);
      expectProblem(await call('PATCH', memberUrl('not-a-uuid'), owner.token, { role: 'viewer' }), 400, 'invalid_request');
    });
  });

  describe('DELETE …/members/{user_id}', () => {
    it('removes a member (204): they lose the structure at once', async () => {
      expect((await call('GET', `/api/org/structures/${structureId}`, bo.token)).statusCode).toBe(200);
      const response = await call('DELETE', memberUrl(bo.id));
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expectProblem(await call('GET', `/api/org/structures/${structureId}`, bo.token), 404, 'not_found');
      expectProblem(await call('DELETE', memberUrl(bo.id)), 404, 'not_found');
    });

    it('never removes the last owner (409)', async () => {
      const body = expectProblem(await call('DELETE', memberUrl(owner.id)), 409, 'conflict');
      expect(body.detail).toContain('the last owner of a structure cannot be removed');
    });

    it('acts on the structure of the path only', async () => {
      // ana is a member of People, not of Other: removing her "from Other" is a 404.
      expectProblem(await call('DELETE', memberUrl(ana.id, otherId)), 404, 'not_found');
      expect((await members()).members.some((m) => m.user_id === ana.id)).toBe(true);
    });
  });

  describe('DELETE …/invites/{invite_id}', () => {
    it('revokes an open invite: 204, gone from the list, and its token answers 410', async () => {
      expect((await call('POST', `/api/org/structures/${structureId}/share`, owner.token, { email: 'cy@example.com', role: 'viewer' })).statusCode).toBe(200);
      const token = /org_inv_[0-9A-Za-z]+/.exec(mailer.sent.at(-1)!.text)![0];
      const invite = (await members()).invites.find((i) => i.email === 'cy@example.com')!;
      expect(invite.id).toMatch(UUID);
      expectProblem(await call('DELETE', `/api/org/structures/${structureId}/invites/${invite.id}`, ana.token), 403, 'forbidden');
      expectProblem(await call('DELETE', `/api/org/structures/${otherId}/invites/${invite.id}`), 404, 'not_found');
      expect((await call('DELETE', `/api/org/structures/${structureId}/invites/${invite.id}`)).statusCode).toBe(204);
      expect((await members()).invites.some((i) => i.id === invite.id)).toBe(false);
      const refused = expectProblem(await t.server.inject({ method: 'POST', url: '/api/org/invites/accept', payload: { token } }), 410, 'gone');
      expect(refused.detail).toBe('this invite was revoked');
      expectProblem(await call('DELETE', `/api/org/structures/${structureId}/invites/${invite.id}`), 404, 'not_found');
    });
  });

  it('POST /structures without a template creates a blank structure', async () => {
    const response = await call('POST', '/api/org/structures', owner.token, { name: 'No template' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ name: 'No template', template: 'blank', agents: [], role: 'owner' });
  });
});
