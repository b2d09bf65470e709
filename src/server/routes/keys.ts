/** MCP key routes: mint, list, revoke (API.md §3, §5). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { NoContent, NodeParams, Uuid, problems } from '../schemas/common.js';
import { CreateKeyBody, CreatedKeySchema, KeyListingSchema } from '../schemas/workspaces.js';

/** MCP node keys. */
export const keyRoutes: FastifyPluginAsyncTypebox<{ app: App }> = async (server, { app }) => {
  const tags = ['mcp keys'];
  const security = [{ bearer: [] }];
  const access = { kind: 'structure', action: 'admin_structure' } as const;

  server.post(
    '/api/org/structures/:structure_id/agents/:role_id/mcp-key',
    {
      config: { access },
      schema: {
        summary: 'Mint an MCP key for a node; the token is shown only in this response',
        tags,
        security,
        params: NodeParams,
        body: Type.Optional(CreateKeyBody),
        response: { 201: CreatedKeySchema, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const { structure_id, role_id } = request.params;
      const node = app.workspaces.node(structure_id, role_id);
      const label = request.body?.label;
      const created = await app.keys.mint({ structureId: structure_id, nodeId: node.id, roleId: role_id, ...(label ? { label } : {}) });
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  server.get(
    '/api/org/structures/:structure_id/agents/:role_id/mcp-keys',
    {
      config: { access },
      schema: {
        summary: 'MCP keys of a node (never their tokens)',
        tags,
        security,
        params: NodeParams,
        response: { 200: Type.Object({ keys: Type.Array(KeyListingSchema) }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { structure_id, role_id } = request.params;
      const node = app.workspaces.node(structure_id, role_id);
      return { keys: app.keys.list(structure_id, node.id) };
    },
  );

  server.delete(
    '/api/org/structures/:structure_id/agents/:role_id/mcp-key/:key_id',
    {
      config: { access },
      schema: {
        summary: 'Revoke an MCP key at once; its open streams and sessions end',
        tags,
        security,
        params: Type.Object({ structure_id: Uuid, role_id: NodeParams.properties.role_id, key_id: Uuid }),
        response: { 204: NoContent, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { structure_id, role_id, key_id } = request.params;
      const node = app.workspaces.node(structure_id, role_id);
      await app.keys.revoke(structure_id, node.id, key_id);
      return reply.code(204).send(null);
    },
  );
};
