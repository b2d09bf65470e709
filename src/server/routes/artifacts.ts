/** Artifact routes: a node's shelf listing and downloads (API.md §6). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { NodeParams, problems } from '../schemas/common.js';
import { ArtifactInfoSchema } from '../../core/schemas/index.js';
import { mediaTypeOr } from '../../core/util/index.js';
import { nodeScopeOf } from '../scope.js';

/** The artifact shelf of a node. */
export const artifactRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'nodes' | 'chat'> }> = async (server, { app }) => {
  const tags = ['artifacts'];
  const access = { kind: 'structure', action: 'read_history', from: 'params', node: 'params' } as const;

  server.get(
    '/api/org/structures/:structure_id/agents/:role_id/artifacts',
    {
      config: { access },
      schema: {
        operationId: 'listArtifacts',
        summary: 'Artifacts on a node’s shelf, newest first',
        tags,
        params: NodeParams,
        response: { 200: Type.Object({ artifacts: Type.Array(ArtifactInfoSchema) }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const node = app.nodes.get(structureId, roleId);
      return { artifacts: await app.chat.shelfOf(structureId, node.id).list() };
    },
  );

  server.get(
    '/api/org/structures/:structure_id/agents/:role_id/artifacts/:name',
    {
      config: { access },
      schema: {
        operationId: 'downloadArtifact',
        summary: 'Download an artifact with its content type',
        tags,
        params: Type.Object({ ...NodeParams.properties, name: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: {
          200: { description: 'The file, served with the content type it was stored with', content: { '*/*': { schema: Type.String({ description: 'the file’s bytes' }) } } },
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const node = app.nodes.get(structureId, roleId);
      const { info, stream } = await app.chat.shelfOf(structureId, node.id).open(request.params.name);
      return reply
        // A record stored before media types were checked may hold anything: never a header it cannot be.
        .type(mediaTypeOr(info.content_type))
        .header('content-length', info.size)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "sandbox; default-src 'none'")
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(info.name)}`)
        .send(stream as never);
    },
  );
};
