/** Artifact routes: a node's shelf listing and downloads (API.md §6). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { NodeParams, problems } from '../schemas/common.js';
import { ArtifactSchema } from '../schemas/chat.js';

/** The artifact shelf of a node. */
export const artifactRoutes: FastifyPluginAsyncTypebox<{ app: App }> = async (server, { app }) => {
  const tags = ['artifacts'];
  const security = [{ bearer: [] }];
  const access = { kind: 'structure', action: 'read_history', node: true } as const;

  server.get(
    '/api/org/structures/:structure_id/agents/:role_id/artifacts',
    {
      config: { access },
      schema: {
        summary: 'Artifacts on a node’s shelf, newest first',
        tags,
        security,
        params: NodeParams,
        response: { 200: Type.Object({ artifacts: Type.Array(ArtifactSchema) }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { structure_id, role_id } = request.params;
      const node = app.workspaces.node(structure_id, role_id);
      return { artifacts: await app.chat.shelfOf(structure_id, node.id).list() };
    },
  );

  server.get(
    '/api/org/structures/:structure_id/agents/:role_id/artifacts/:name',
    {
      config: { access },
      schema: {
        summary: 'Download an artifact with its content type',
        tags,
        security,
        params: Type.Object({ ...NodeParams.properties, name: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: { description: 'The file', content: { 'application/octet-stream': { schema: Type.String() } } }, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { structure_id, role_id, name } = request.params;
      const node = app.workspaces.node(structure_id, role_id);
      const { info, stream } = await app.chat.shelfOf(structure_id, node.id).open(name);
      return reply
        .type(info.content_type)
        .header('content-length', info.size)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "sandbox; default-src 'none'")
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(info.name)}`)
        .send(stream as never);
    },
  );
};
