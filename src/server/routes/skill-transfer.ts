/**
 * Agent Skills import and export (API.md §9): `GET /api/org/knowledge/skills/{slug}/export`
 * answers a zip holding `<slug>/SKILL.md` and the skill's files; `POST
 * /api/org/knowledge/import` takes a zip of skill folders and answers what it would do
 * (`dry_run`, the default) or did, writing through the skill store.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { OrgError, invalid, notFound } from '../../core/errors.js';
import { agentSkills, exportFolder, importFolders } from '../../core/skills/index.js';
import { ImportReportSchema, Slug, Uuid } from '../../core/schemas/index.js';
import { problems } from '../schemas/common.js';
import { scopeOf } from '../scope.js';

/** Largest zip accepted by the import, in bytes. */
export const MAX_IMPORT_BYTES = 25 * 1024 * 1024;

/** Skill import and export routes. */
export const skillTransferRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'skills' | 'egress'> }> = async (server, { app }) => {
  const tags = ['skills'];
  const actorOf = (request: FastifyRequest) => {
    const principal = request.principal;
    return principal?.kind === 'user' ? principal.user.email : (principal?.kind ?? 'unknown');
  };

  // Zips only on these routes; the rest of the API stays JSON (415 otherwise).
  server.addContentTypeParser(['application/zip', 'application/x-zip-compressed'], { parseAs: 'buffer', bodyLimit: MAX_IMPORT_BYTES }, (_request, body, done) => done(null, body));

  server.get(
    '/api/org/knowledge/skills/:slug/export',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'query', optional: true } },
      schema: {
        operationId: 'exportSkill',
        summary: 'A skill as an Agent Skills zip: <slug>/SKILL.md (valid Agent Skill) and its files',
        tags,
        params: Type.Object({ slug: Slug }),
        querystring: Type.Object({ structure_id: Type.Optional(Uuid) }),
        response: { 200: { description: 'application/zip', content: { 'application/zip': { schema: Type.String({ format: 'binary' }) } } }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const structureId = request.scope ? scopeOf(request).structureId : undefined;
      const folder = await exportFolder(app.skills, request.params.slug, structureId);
      if (!folder) throw notFound(`skill ${request.params.slug} not found`);
      const zip = agentSkills.zipFolders([folder]);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${folder.name}.zip"`)
        .header('x-content-type-options', 'nosniff')
        .send(Buffer.from(zip) as never);
    },
  );

  server.post(
    '/api/org/knowledge/import',
    {
      config: {
        access: { kind: 'structure', action: 'write_skills', from: 'query', instance: true },
        // Dry runs and refused uploads are recorded too: an upload is an attempt on the library either way.
        audit: { action: (request) => ((request.query as { dry_run?: boolean }).dry_run === false ? 'skill.import' : 'skill.import_dry_run'), refused: true },
      },
      bodyLimit: MAX_IMPORT_BYTES,
      schema: {
        operationId: 'importSkills',
        summary: 'Import Agent Skills folders from a zip as the structure’s own skills: a dry-run report by default, written with dry_run=false',
        description:
          'Every skill lands in the importing structure (structure_id); a folder whose slug is an instance skill’s is skipped (fork it instead). Without structure_id, the instance administrator imports instance skills. Front matter is read as YAML data only, and nothing in the zip is ever run.',
        tags,
        querystring: Type.Object({ structure_id: Type.Optional(Uuid), dry_run: Type.Optional(Type.Boolean({ default: true })) }),
        response: { 200: ImportReportSchema, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const body = request.body;
      if (!Buffer.isBuffer(body)) throw new OrgError('unsupported_media_type', 'the body must be a zip file sent as Content-Type: application/zip');
      if (body.length === 0) throw invalid('the body is empty: send a zip file of skill folders');
      let unpacked;
      try {
        unpacked = await agentSkills.unzipFolders(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
      } catch (error) {
        if (error instanceof agentSkills.ZipError) throw new OrgError(/more than \d+ bytes|larger than/.test(error.message) ? 'payload_too_large' : 'invalid_request', error.message);
        throw error;
      }
      if (unpacked.folders.length === 0) throw invalid('the zip holds no skill folder (a folder with a SKILL.md)');
      const structureId = request.scope?.structureId;
      const report = await importFolders(app.skills, unpacked.folders, {
        ...(structureId !== undefined ? { structureId } : {}),
        actor: actorOf(request),
        dryRun: request.query.dry_run !== false,
        checkToolUrl: (url, slug) => app.egress.assertAllowed(url, `tool_url of ${slug}`),
      });
      return { ...report, problems: [...unpacked.problems, ...report.problems] };
    },
  );
};
