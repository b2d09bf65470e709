/** MCP key routes: mint, list, revoke (API.md §3, §5). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { McpKeyCreatedSchema, McpKeyListingSchema, McpKeyRequestSchema, Uuid } from '../../core/schemas/index.js';
import { NoContent, NodeParams, problems } from '../schemas/common.js';
import { nodeScopeOf } from '../scope.js';
import { fromAnswer, fromParams } from '../audit.js';

/** MCP node keys. */
export const keyRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'nodes' | 'keys'> }> = async (server, { app }) => {
  const tags = ['mcp keys'];
  const access = { kind: 'structure', action: 'admin_structure', from: 'params', node: 'params' } as const;

  server.post(
    '/api/org/structures/:structure_id/agents/:role_id/mcp-key',
    {
      config: { access, audit: { action: 'key.mint', target: fromAnswer('key', 'id') } },
      schema: {
        operationId: 'mintMcpKey',
        summary: 'Mint an MCP key for a node; the token is shown only in this response',
        tags,
        params: NodeParams,
        body: Type.Optional(McpKeyRequestSchema),
        response: { 201: McpKeyCreatedSchema, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const node = app.nodes.get(structureId, roleId);
      const label = request.body?.label;
      const created = await app.keys.mint({ structureId, nodeId: node.id, roleId, ...(label ? { label } : {}) });
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  server.get(
    '/api/org/structures/:structure_id/agents/:role_id/mcp-keys',
    {
      config: { access },
      schema: {
        operationId: 'listMcpKeys',
        summary: 'MCP keys of a node (never their tokens)',
        tags,
        params: NodeParams,
        response: { 200: Type.Object({ keys: Type.Array(McpKeyListingSchema) }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const node = app.nodes.get(structureId, roleId);
      return { keys: await app.keys.list(structureId, node.id) };
    },
  );

  server.delete(
    '/api/org/structures/:structure_id/agents/:role_id/mcp-key/:key_id',
    {
      config: { access, audit: { action: 'key.revoke', target: fromParams('key', 'key_id') } },
      schema: {
        operationId: 'revokeMcpKey',
        summary: 'Revoke an MCP key at once; its open streams and sessions end',
        tags,
        params: Type.Object({ structure_id: Uuid, role_id: NodeParams.properties.role_id, key_id: Uuid }),
        response: { 204: NoContent, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const node = app.nodes.get(structureId, roleId);
      await app.keys.revoke(structureId, node.id, request.params.key_id);
      return reply.code(204).send(null);
    },
  );
};
