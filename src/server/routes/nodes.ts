/** Node routes: add, update, delete (archive) and restore (API.md §5). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { App } from '../../app.js';
import { NoContent, NodeParams, StructureParams, problems } from '../schemas/common.js';
import { Type } from 'typebox';
import { NewNodeSchema, NodePatchSchema, NodeSchema, TimelineEntrySchema } from '../../core/schemas/index.js';
import { actorOf } from '../access.js';
import { nodeScopeOf, scopeOf } from '../scope.js';
import { fromBody, fromParams } from '../audit.js';

/** Nodes of a structure. */
export const nodeRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'nodes' | 'egress'> }> = async (server, { app }) => {
  const tags = ['nodes'];
  const access = { kind: 'structure', action: 'manage_nodes', from: 'params' } as const;
  const nodeAccess = { ...access, node: 'params' } as const;

  server.post(
    '/api/org/structures/:structure_id/agents',
    {
      config: { access, audit: { action: 'node.add', target: fromBody('node', 'role_id') } },
      schema: {
        operationId: 'addNode',
        summary: 'Add a node',
        tags,
        params: StructureParams,
        body: NewNodeSchema,
        response: { 201: NodeSchema, ...problems(400, 401, 403, 404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      if (request.body.container_url) await app.egress.assertAllowed(request.body.container_url, 'container_url');
      const node = await app.nodes.add(scopeOf(request).structureId, request.body, actorOf(request));
      return reply.code(201).send(node);
    },
  );

  server.patch(
    '/api/org/structures/:structure_id/agents/:role_id',
    {
      config: { access: nodeAccess, audit: { action: 'node.update', target: fromParams('node', 'role_id') } },
      schema: {
        operationId: 'updateNode',
        summary: 'Change a node’s label, position, starting context or container URL',
        tags,
        params: NodeParams,
        body: NodePatchSchema,
        response: { 200: NodeSchema, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request) => {
      const { structureId, roleId } = nodeScopeOf(request);
      if (request.body.container_url) await app.egress.assertAllowed(request.body.container_url, 'container_url');
      return app.nodes.update(structureId, roleId, request.body, actorOf(request));
    },
  );

  server.get(
    '/api/org/structures/:structure_id/agents/:role_id/timeline',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'params', node: 'params' } },
      schema: {
        operationId: 'getNodeTimeline',
        summary: 'What happened to a node (created, updated, moved, archived, restored), oldest first; also for an archived node',
        tags,
        params: NodeParams,
        response: { 200: Type.Object({ entries: Type.Array(TimelineEntrySchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => {
      const { structureId, roleId } = nodeScopeOf(request);
      return { entries: await app.nodes.timelineOf(structureId, roleId) };
    },
  );

  server.delete(
    '/api/org/structures/:structure_id/agents/:role_id',
    {
      config: { access: nodeAccess, audit: { action: 'node.delete', target: fromParams('node', 'role_id') } },
      schema: {
        operationId: 'deleteNode',
        summary: 'Delete a childless node; its record, history, artifacts and timeline are archived',
        tags,
        params: NodeParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { structureId, roleId } = nodeScopeOf(request);
      await app.nodes.remove(structureId, roleId, actorOf(request));
      return reply.code(204).send(null);
    },
  );

  server.post(
    '/api/org/structures/:structure_id/agents/:role_id/restore',
    {
      config: { access: nodeAccess, audit: { action: 'node.restore', target: fromParams('node', 'role_id') } },
      schema: {
        operationId: 'restoreNode',
        summary: 'Restore an archived node',
        tags,
        params: NodeParams,
        response: { 201: NodeSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const node = await app.nodes.restore(structureId, roleId, actorOf(request));
      return reply.code(201).send(node);
    },
  );
};
