/**
 * Sharing routes: invite by e-mail, accept or revoke an invite, list members, change a
 * member's role, remove a member (API.md §5, §9). A structure keeps at least one owner.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { NoContent, StructureParams, problems } from '../schemas/common.js';
import { AcceptInviteSchema, AcceptanceSchema, InvitePreviewSchema, InviteSchema, MemberRoleSchema, MemberSchema, MembersSchema, ShareSchema, Uuid } from '../../core/schemas/index.js';
import { actorOf } from '../access.js';
import { scopeOf } from '../scope.js';
import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../../core/schemas/index.js';
import { field, fromAnswer, fromParams } from '../audit.js';

/** Who accepted an invite (no bearer): the person the answer says it signed in. */
function joinedBy(_request: FastifyRequest, answer: unknown): AuditActor | null {
  const id = field(answer, 'user', 'id');
  return id ? { kind: 'user', id, email: field(answer, 'user', 'email') } : null;
}

/** Routes for sharing a structure: share by e-mail, list members and open invites, accept an invite. */
export const memberRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'invites' | 'members' | 'users'> }> = async (server, { app }) => {
  const tags = ['members'];

  server.post(
    '/api/org/structures/:structure_id/share',
    {
      config: { access: { kind: 'structure', action: 'admin_structure', from: 'params' }, audit: { action: 'member.invite', target: fromAnswer('invite', 'invite', 'id') } },
      schema: {
        operationId: 'shareStructure',
        summary: 'Invite an e-mail address with a role; the invite e-mail is sent',
        tags,
        params: StructureParams,
        body: ShareSchema,
        response: { 200: Type.Object({ invite: InviteSchema }), ...problems(400, 401, 403, 404, 415, 503) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const invitedBy = principal.kind === 'user' ? principal.user.email : 'the administrator';
      const invite = await app.invites.share({
        structureId: scopeOf(request).structureId,
        email: request.body.email,
        role: request.body.role,
        invitedBy,
      });
      return { invite };
    },
  );

  server.get(
    '/api/org/structures/:structure_id/members',
    {
      config: { access: { kind: 'structure', action: 'admin_structure', from: 'params' } },
      schema: {
        operationId: 'listMembers',
        summary: 'Members and open invites',
        tags,
        params: StructureParams,
        response: { 200: MembersSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const id = scopeOf(request).structureId;
      const members = await Promise.all(app.members.list(id).map((member) => memberOf(member)));
      return { members, invites: await app.invites.list(id) };
    },
  );

  const MemberParams = Type.Object({ structure_id: Uuid, user_id: Uuid });
  const memberOf = async (member: { user_id: string; role: 'viewer' | 'operator' | 'owner' }) => ({
    user_id: member.user_id,
    email: (await app.users.byId(member.user_id))?.email ?? '',
    role: member.role,
  });

  server.patch(
    '/api/org/structures/:structure_id/members/:user_id',
    {
      config: { access: { kind: 'structure', action: 'admin_structure', from: 'params' }, audit: { action: 'member.role_change', target: fromParams('member', 'user_id') } },
      schema: {
        operationId: 'changeMemberRole',
        summary: "Change a member's role; the last owner cannot be demoted (409)",
        tags,
        params: MemberParams,
        body: MemberRoleSchema,
        response: { 200: MemberSchema, ...problems(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) => {
      return memberOf(await app.members.changeRole(scopeOf(request).structureId, request.params.user_id, request.body.role, actorOf(request)));
    },
  );

  server.delete(
    '/api/org/structures/:structure_id/members/:user_id',
    {
      config: { access: { kind: 'structure', action: 'admin_structure', from: 'params' }, audit: { action: 'member.remove', target: fromParams('member', 'user_id') } },
      schema: {
        operationId: 'removeMember',
        summary: 'Remove a member; the last owner cannot be removed (409)',
        tags,
        params: MemberParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.members.remove(scopeOf(request).structureId, request.params.user_id, actorOf(request));
      return reply.code(204).send(null);
    },
  );

  server.delete(
    '/api/org/structures/:structure_id/invites/:invite_id',
    {
      config: { access: { kind: 'structure', action: 'admin_structure', from: 'params' }, audit: { action: 'invite.revoke', target: fromParams('invite', 'invite_id') } },
      schema: {
        operationId: 'revokeInvite',
        summary: 'Revoke an open invite: its token stops working at once',
        tags,
        params: Type.Object({ structure_id: Uuid, invite_id: Uuid }),
        response: { 204: NoContent, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.invites.revoke(scopeOf(request).structureId, request.params.invite_id);
      return reply.code(204).send(null);
    },
  );

  server.post(
    '/api/org/invites/preview',
    {
      config: { access: { kind: 'public' }, audit: false },
      schema: {
        operationId: 'previewInvite',
        summary: 'What an invite offers (structure, role, address), read with its one-time token before accepting (no bearer needed)',
        tags,
        body: AcceptInviteSchema,
        response: { 200: InvitePreviewSchema, ...problems(400, 404, 410, 415) },
      },
    },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await app.invites.preview(request.body.token)),
  );

  server.post(
    '/api/org/invites/accept',
    {
      config: { access: { kind: 'public' }, audit: { action: 'member.join', target: fromAnswer('member', 'user', 'id'), structure: (_request, answer) => field(answer, 'structure_id'), actor: joinedBy } },
      schema: {
        operationId: 'acceptInvite',
        summary: 'Accept an invite with its one-time token (no bearer needed)',
        tags,
        body: AcceptInviteSchema,
        response: { 200: AcceptanceSchema, ...problems(400, 404, 410, 415) },
      },
    },
    async (request, reply) => {
      const acceptance = await app.invites.accept(request.body.token);
      return reply.header('cache-control', 'no-store').send(acceptance);
    },
  );
};
