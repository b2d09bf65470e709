/**
 * A skill's versions (the Skills Editor's View / Diff / Restore): the list, one version's
 * text beside the current one, and restoring a version as the skill's next version. The
 * skill is found as GET one finds it and its versions come from its own scope only
 * (`core/skills/versions.ts`). Restoring is a write like any other (operators and owners
 * of the structure for its skills, the instance administrator for instance skills),
 * goes through the same write path, and needs `If-Match` with the current ETag, so a
 * change made meanwhile is never overwritten.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { instanceSkill, invalid, notFound } from '../../core/errors.js';
import {
  RestoreVersionHeadersSchema,
  SkillSchema,
  SkillVersionId,
  SkillVersionListSchema,
  SkillVersionTextSchema,
  Slug,
  Uuid,
} from '../../core/schemas/index.js';
import { currentSkillText, listSkillVersions, parseIfMatch, readSkillVersion, skillETag, type Skill } from '../../core/skills/index.js';
import { actorOf } from '../access.js';
import { fromParams } from '../audit.js';
import { problems } from '../schemas/common.js';
import { keyOfSkill, readableSkill } from './skill-read.js';

/** The skill a restore changes: the request's structure's own skill, or (no structure: the administrator) the instance skill. */
async function writable(app: Pick<App, 'skills'>, request: FastifyRequest, slug: string): Promise<Skill> {
  const structureId = request.scope?.structureId;
  const skill = await app.skills.get(slug, structureId);
  if (!skill) throw notFound(`skill ${slug} not found`);
  if (skill.frontmatter.structure_id !== structureId) throw instanceSkill(slug);
  return skill;
}

/** The routes of skill versions. */
export const skillVersionRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'skills' | 'access' | 'paths' | 'egress'> }> = async (server, { app }) => {
  server.addHook('preHandler', async () => {
    if (!app.skills.isReady()) await app.skills.ready();
  });
  const tags = ['skills'];
  const ReadQuery = Type.Object({ structure_id: Type.Optional(Uuid) });
  const VersionParams = Type.Object({ slug: Slug, version: SkillVersionId });
  const root = app.paths.skills;

  server.get(
    '/api/org/knowledge/skills/:slug/versions',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true, unscoped: true } },
      schema: {
        operationId: 'listSkillVersions',
        summary: 'The versions of a skill, newest first: the git commits of its file, and the texts updates replaced that git does not hold',
        description:
          'The skill is found as GET one finds it. `git` says whether the library is in a git work tree; without git only the copies updates kept in the deleted area are listed. Versions of another structure are never listed, whatever path the file had.',
        tags,
        params: Type.Object({ slug: Slug }),
        querystring: ReadQuery,
        response: { 200: SkillVersionListSchema, ...problems(400, 401, 404) },
      },
    },
    async (request) => listSkillVersions(root, keyOfSkill(await readableSkill(app, request, request.params.slug))),
  );

  server.get(
    '/api/org/knowledge/skills/:slug/versions/:version',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true, unscoped: true } },
      schema: {
        operationId: 'getSkillVersion',
        summary: 'One version of a skill: its file, parsed when it parses, and the current file with its ETag to compare and restore against',
        description: '`version` is a listed id: a commit (7–40 hex digits, a unique prefix) or a kept copy. 404 when the skill has no such version; 400 when a prefix names several.',
        tags,
        params: VersionParams,
        querystring: ReadQuery,
        response: { 200: SkillVersionTextSchema, ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const key = keyOfSkill(await readableSkill(app, request, request.params.slug));
      const { version, text, parsed } = await readSkillVersion(root, key, request.params.version);
      const current = await currentSkillText(root, key);
      return { version, text, ...(parsed.ok ? { skill: parsed.skill } : { problem: parsed.message }), current };
    },
  );

  server.post(
    '/api/org/knowledge/skills/:slug/versions/:version/restore',
    {
      config: {
        access: { kind: 'structure', action: 'write_skills', from: 'query', instance: true },
        audit: { action: 'skill.restore_version', target: fromParams('skill', 'slug') },
      },
      schema: {
        operationId: 'restoreSkillVersion',
        summary: 'Write a version back as the skill’s next version (If-Match with the current ETag is required; 412 when the skill changed since)',
        description:
          'A structure restores its own skills; an instance skill only the instance administrator, naming no structure (403 instance_skill otherwise). The write goes through the same path as POST /knowledge/skills: the replaced text is kept, the git commit (when org commits) says which version came back, and the answer carries the new ETag. A version that does not parse as a skill → 400.',
        tags,
        headers: RestoreVersionHeadersSchema,
        params: VersionParams,
        querystring: ReadQuery,
        response: { 200: SkillSchema, ...problems(400, 401, 403, 404, 412) },
      },
    },
    async (request, reply) => {
      const { slug, version: id } = request.params;
      const ifMatch = parseIfMatch(request.headers['if-match']);
      if (!ifMatch || ifMatch.length === 0) {
        throw invalid('If-Match is required: send the ETag of the skill’s current version (GET the skill), so a change made since is not overwritten', [
          { path: 'headers.if-match', message: 'is required' },
        ]);
      }
      const key = keyOfSkill(await writable(app, request, slug));
      const { version, parsed } = await readSkillVersion(root, key, id);
      if (!parsed.ok) throw invalid(`version ${id} of ${slug} does not parse as a skill (${parsed.message}); it can be viewed, not restored`);
      const { frontmatter, body } = parsed.skill;
      if (typeof frontmatter.tool_url === 'string') await app.egress.assertAllowed(frontmatter.tool_url, 'frontmatter.tool_url');
      const { skill } = await app.skills.upsert({
        slug,
        frontmatter,
        body,
        ...(key.structureId !== undefined ? { structureId: key.structureId } : {}),
        actor: actorOf(request),
        ifMatch,
        note: `restore version ${version.source === 'git' ? version.id.slice(0, 12) : version.id}`,
      });
      return reply.header('etag', skillETag(skill)).send(skill);
    },
  );
};
