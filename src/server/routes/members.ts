/** Sharing routes: invite by e-mail, accept an invite, list members (API.md §5). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { StructureParams, problems } from '../schemas/common.js';
import { AcceptInviteSchema, AcceptanceSchema, InviteSchema, MembersSchema, ShareSchema } from '../../core/schemas/index.js';
import { scopeOf } from '../scope.js';

/** Members and invites. */
export const memberRoutes: FastifyPluginAsyncTypebox<{ app: App }> = async (server, { app }) => {
  const tags = ['members'];

  server.post(
    '/api/org/structures/:structure_id/share',
    {
      config: { access: { kind: 'structure', action: 'admin_structure', from: 'params' } },
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
      const members = await Promise.all(
        app.members.list(id).map(async (member) => ({
          user_id: member.user_id,
          email: (await app.users.byId(member.user_id))?.email ?? '',
          role: member.role,
        })),
      );
      return { members, invites: await app.invites.list(id) };
    },
  );

  server.post(
    '/api/org/invites/accept',
    {
      config: { access: { kind: 'public' } },
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
