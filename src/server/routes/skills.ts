/**
 * Skill library routes: list, read, upsert, delete, restore, search, problems, history
 * (API.md §4, §10). A request names the structure it acts for: it reads that structure's
 * own skills and the instance skills it sees, and writes only its own skills; the
 * instance administrator writes instance skills by naming no structure.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { parseIfMatch, skillCommits, skillETag, type Skill, type SkillStatus } from '../../core/skills/index.js';
import { actorOf } from '../access.js';
import {
  DeletedSkillSchema,
  GapsQuerySchema,
  SearchRequestSchema,
  SearchResponseSchema,
  SkillCommitSchema,
  SkillGapSchema,
  SkillListEntrySchema,
  SkillListQuerySchema,
  SkillProblemSchema,
  SkillSchema,
  SkillWriteHeadersSchema,
  SkillWriteSchema,
  Slug,
  Uuid,
} from '../../core/schemas/index.js';
import type { SkillWriteHeaders } from '../../core/schemas/index.js';
import type { WritePrecondition } from '../../core/skills/index.js';
import { NoContent, problems } from '../schemas/common.js';
import { fromBody, fromParams } from '../audit.js';
import { keyOfSkill, readableSkill } from './skill-read.js';

/** The store's write condition for a skill write's headers (undefined: create or replace). */
function writePrecondition(headers: SkillWriteHeaders): WritePrecondition | undefined {
  return headers['if-none-match'] === '*' ? { kind: 'absent' } : undefined;
}

/** The scope option of a delete or restore: the request's structure, none for the instance library. */
function scopeOption(request: FastifyRequest): { structureId?: string } {
  const structureId = request.scope?.structureId;
  return structureId !== undefined ? { structureId } : {};
}

/** The `If-Match` condition of a write, when the request has one. */
function ifMatchOf(headers: { 'if-match'?: string }): { ifMatch?: string[] } {
  const tags = parseIfMatch(headers['if-match']);
  return tags ? { ifMatch: tags } : {};
}

/** Routes of the skill library: list, read, write, delete and restore, search, history and load problems. */
export const skillRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'skills' | 'access' | 'paths' | 'egress'> }> = async (server, { app }) => {
  const tags = ['skills'];
  // At start the library may still be loading: these requests wait for it (after the
  // access hooks have answered unauthenticated callers) rather than answer empty.
  server.addHook('preHandler', async () => {
    if (!app.skills.isReady()) await app.skills.ready();
  });
  const SlugParams = Type.Object({ slug: Slug });

  const readable = (request: FastifyRequest, slug: string): Promise<Skill> => readableSkill(app, request, slug);
  /** The structure a request acts for; optional where the instance library (or GET one's resolution) stands in for it. */
  const ReadQuery = Type.Object({ structure_id: Type.Optional(Uuid) });

  server.get(
    '/api/org/knowledge/skills',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true } },
      schema: {
        operationId: 'listSkills',
        summary: 'Skills available to a structure’s nodes (deprecated only when asked for)',
        tags,
        querystring: SkillListQuerySchema,
        response: { 200: Type.Object({ skills: Type.Array(SkillListEntrySchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const { status, category, tag } = request.query;
      const structureId = request.scope?.structureId;
      return {
        skills: app.skills.list({
          ...(structureId ? { structureId } : {}),
          ...(status ? { statuses: status.split(',') as SkillStatus[] } : {}),
          ...(category ? { category } : {}),
          ...(tag ? { tag } : {}),
        }),
      };
    },
  );

  server.get(
    '/api/org/knowledge/skills/:slug',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true, unscoped: true } },
      schema: {
        operationId: 'getSkill',
        summary: 'One skill of any status, with its steps; its ETag names the version (If-None-Match → 304)',
        description:
          'With structure_id: that structure’s own skill of this slug, else the instance skill. Without: the instance skill, else the skill of the one structure of yours that has this slug (400 when several do).',
        tags,
        params: SlugParams,
        querystring: ReadQuery,
        response: { 200: SkillSchema, ...problems(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const skill = await readable(request, request.params.slug);
      reply.header('etag', skillETag(skill));
      return skill;
    },
  );

  server.get(
    '/api/org/knowledge/skills/:slug/history',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true, unscoped: true } },
      schema: {
        operationId: 'getSkillHistory',
        summary: 'Git commits of a skill file (empty when the library is not in a git work tree); the skill is found as GET one finds it',
        tags,
        params: SlugParams,
        querystring: ReadQuery,
        response: { 200: Type.Object({ commits: Type.Array(SkillCommitSchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => ({ commits: await skillCommits(app.paths.skills, keyOfSkill(await readable(request, request.params.slug))) }),
  );

  server.post(
    '/api/org/knowledge/skills',
    {
      config: { access: { kind: 'structure', action: 'write_skills', from: 'body', instance: true }, audit: { action: 'skill.write', target: fromBody('skill', 'slug') } },
      schema: {
        operationId: 'upsertSkill',
        summary: 'Create (201) or update (200) a skill; with If-None-Match: * create only (409 already_exists), with If-Match only the version read (412 otherwise)',
        description:
          'A structure writes its own skills (structure_id is set to it); the slug of an instance skill → 403 instance_skill (fork it first). Without structure_id, the instance administrator writes an instance skill. An update keeps the replaced version in the deleted area (listed at /knowledge/deleted with reason "replaced") and rewrites only the front matter members that changed. The answer carries the new version’s ETag.',
        tags,
        headers: SkillWriteHeadersSchema,
        body: SkillWriteSchema,
        response: { 200: SkillSchema, 201: SkillSchema, ...problems(400, 401, 403, 404, 409, 412, 413, 415) },
      },
    },
    async (request, reply) => {
      const structureId = request.scope?.structureId;
      const { slug, frontmatter, body } = request.body;
      if (typeof frontmatter.tool_url === 'string') await app.egress.assertAllowed(frontmatter.tool_url, 'frontmatter.tool_url');
      const precondition = writePrecondition(request.headers);
      const { skill, created } = await app.skills.upsert({
        slug,
        frontmatter,
        body,
        ...(structureId !== undefined ? { structureId } : {}),
        actor: actorOf(request),
        ...(precondition ? { precondition } : {}),
        ...ifMatchOf(request.headers),
      });
      return reply.code(created ? 201 : 200).header('etag', skillETag(skill)).send(skill);
    },
  );

  server.delete(
    '/api/org/knowledge/skills/:slug',
    {
      config: { access: { kind: 'structure', action: 'write_skills', from: 'query', instance: true }, audit: { action: 'skill.delete', target: fromParams('skill', 'slug') } },
      schema: {
        operationId: 'deleteSkill',
        summary: 'Delete a skill of the structure (an instance skill: the instance administrator, naming no structure; 403 instance_skill otherwise); its file moves to the deleted area and can be restored; with If-Match only the version read (412 otherwise)',
        tags,
        headers: SkillWriteHeadersSchema,
        params: SlugParams,
        querystring: ReadQuery,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      await app.skills.remove(request.params.slug, { ...scopeOption(request), actor: actorOf(request), ...ifMatchOf(request.headers) });
      return reply.code(204).send(null);
    },
  );

  server.post(
    '/api/org/knowledge/skills/:slug/restore',
    {
      config: { access: { kind: 'structure', action: 'write_skills', from: 'query', instance: true }, audit: { action: 'skill.restore', target: fromParams('skill', 'slug') } },
      schema: {
        operationId: 'restoreSkill',
        summary: 'Restore the newest deleted version of a skill of the structure (of the instance library: the instance administrator, naming no structure)',
        tags,
        params: SlugParams,
        querystring: ReadQuery,
        response: { 200: SkillSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const skill = await app.skills.restore(request.params.slug, { ...scopeOption(request), actor: actorOf(request) });
      return reply.header('etag', skillETag(skill)).send(skill);
    },
  );

  server.get(
    '/api/org/knowledge/deleted',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true } },
      schema: {
        operationId: 'listDeletedSkills',
        summary: 'Deleted skills that can be restored, newest first',
        tags,
        querystring: Type.Object({ structure_id: Type.Optional(Uuid) }),
        response: { 200: Type.Object({ skills: Type.Array(DeletedSkillSchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => ({ skills: await app.skills.listDeleted(request.scope?.structureId) }),
  );

  server.post(
    '/api/org/knowledge/search',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'body', optional: true }, audit: false },
      schema: {
        operationId: 'searchSkills',
        summary: 'What an agent of the structure would match: complete skills, ranked, with reasons (and, with explain, why each candidate was kept or cut)',
        tags,
        body: SearchRequestSchema,
        response: { 200: SearchResponseSchema, ...problems(400, 401, 404, 415) },
      },
    },
    async (request) => {
      const structureId = request.scope?.structureId;
      const { query, limit, explain, why } = request.body;
      const options = { limit, ...(structureId ? { structureId } : {}) };
      if (!explain && !why) return { matches: app.skills.search(query, options) };
      const explanation = app.skills.explain(query, { ...options, ...(why ? { slugs: why } : {}) });
      const matches = explanation.candidates.filter((c) => c.kept).map(({ slug, score, reason }) => ({ slug, score, reason }));
      return { matches, explain: explanation };
    },
  );

  server.get(
    '/api/org/knowledge/gaps',
    {
      config: { access: { kind: 'structure', action: 'write_skills', from: 'query', optional: true } },
      schema: {
        operationId: 'listSkillGaps',
        summary: 'Recent chat messages that matched no skill or only weakly, grouped, most frequent first',
        tags,
        querystring: GapsQuerySchema,
        response: { 200: Type.Object({ gaps: Type.Array(SkillGapSchema) }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const structureId = request.scope?.structureId;
      const { since, limit } = request.query;
      return { gaps: await app.skills.gaps({ ...(structureId ? { structureId } : {}), ...(since ? { since: new Date(since) } : {}), ...(limit ? { limit } : {}) }) };
    },
  );

  server.get(
    '/api/org/knowledge/problems',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true, unscoped: true } },
      schema: {
        operationId: 'listSkillProblems',
        summary: 'Skill files that could not be loaded, with the reason and the line of the file it is on',
        description:
          'The instance library’s problems, and with structure_id that structure’s own. Another structure’s are never listed; the instance administrator naming no structure sees every one.',
        tags,
        querystring: ReadQuery,
        response: { 200: Type.Object({ problems: Type.Array(SkillProblemSchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const structureId = request.scope?.structureId;
      const all = structureId === undefined && app.access.isInstanceAdmin(request.principal!);
      return { problems: app.skills.problems({ ...(structureId !== undefined ? { structureId } : {}), all }) };
    },
  );
};
