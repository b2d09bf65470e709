/**
 * `POST /api/org/knowledge/skills/{slug}/fork` (API.md §10): a structure's operators take
 * the structure's own copy of an instance skill, which they may then change; the copy
 * carries `forked_from: <slug>`, and the structure's list and search show it instead of
 * the original.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { ForkRequestSchema, SkillSchema, Slug } from '../../core/schemas/index.js';
import { skillETag } from '../../core/skills/index.js';
import { actorOf } from '../access.js';
import { fromAnswer } from '../audit.js';
import { problems } from '../schemas/common.js';
import { scopeOf } from '../scope.js';

/** The fork route. */
export const skillForkRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'skills'> }> = async (server, { app }) => {
  server.addHook('preHandler', async () => {
    if (!app.skills.isReady()) await app.skills.ready();
  });
  server.post(
    '/api/org/knowledge/skills/:slug/fork',
    {
      config: { access: { kind: 'structure', action: 'write_skills', from: 'body' }, audit: { action: 'skill.fork', target: fromAnswer('skill', 'slug') } },
      schema: {
        operationId: 'forkSkill',
        summary: 'Copy an instance skill into the structure as its own skill (front matter forked_from), which its operators may change',
        description:
          'The copy takes the original’s slug unless `slug` names another; with its own slug it replaces the original for this structure, with another slug `forked_from` hides the original from the structure’s list and search. 404 when there is no instance skill by that slug; 409 when the structure already has a skill by the copy’s slug, or when another slug is an instance skill’s.',
        tags: ['skills'],
        params: Type.Object({ slug: Slug }),
        body: ForkRequestSchema,
        response: { 201: SkillSchema, ...problems(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      const skill = await app.skills.fork({
        slug: request.params.slug,
        structureId: scopeOf(request).structureId,
        ...(request.body.slug !== undefined ? { as: request.body.slug } : {}),
        actor: actorOf(request),
      });
      return reply.code(201).header('etag', skillETag(skill)).send(skill);
    },
  );
};
