/** Structure routes: list, detail, create from a template, archive, log (API.md §5). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { StructureParams, problems } from '../schemas/common.js';
import { sendJsonBytes } from '../serialization.js';
import { scopeOf } from '../scope.js';
import { field, fromAnswer } from '../audit.js';
import {
  ArchivedNodeSchema,
  CreatedStructureSchema,
  LogEntrySchema,
  LOG_LIMIT,
  LogQuerySchema,
  NewStructureSchema,
  StructureDetailSchema,
  StructureSummarySchema,
} from '../../core/schemas/index.js';

/** Structures and their read-only views. */
export const structureRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'structures' | 'nodes' | 'workspaceLog'> }> = async (server, { app }) => {
  const tags = ['structures'];

  server.get(
    '/api/org/structures',
    {
      config: { access: { kind: 'person' } },
      schema: {
        operationId: 'listStructures',
        summary: 'Structures the caller can access, with the caller’s role',
        tags,
        response: { 200: Type.Object({ structures: Type.Array(StructureSummarySchema) }), ...problems(401, 403) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      return { structures: app.structures.summaries(principal.kind === 'admin' ? null : principal.id) };
    },
  );

  server.post(
    '/api/org/structures',
    {
      config: { access: { kind: 'person' }, audit: { action: 'structure.create', target: fromAnswer('structure', 'id'), structure: (_request, answer) => field(answer, 'id') } },
      schema: {
        operationId: 'createStructure',
        summary: 'Create a structure from a template (default blank); the caller becomes its owner',
        tags,
        body: NewStructureSchema,
        response: { 201: CreatedStructureSchema, ...problems(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const detail = await app.structures.create({
        name: request.body.name,
        template: request.body.template ?? 'blank',
        ownerId: principal.kind === 'user' ? principal.id : null,
      });
      return reply.code(201).send({ ...detail, role: 'owner' as const });
    },
  );

  server.get(
    '/api/org/structures/:structure_id',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'params', runToken: 'read' } },
      schema: {
        operationId: 'getStructure',
        summary: 'Structure detail with every node',
        tags,
        params: StructureParams,
        response: { 200: StructureDetailSchema, ...problems(400, 401, 404) },
      },
    },
    // The detail's JSON bytes are cached by the structure's version (see detailBytes).
    // Not async, and the reply is not returned: nothing waits on the sent answer.
    (request, reply) => {
      sendJsonBytes(reply, app.structures.detailBytes(scopeOf(request).structureId));
    },
  );

  server.get(
    '/api/org/structures/:structure_id/archive',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'params' } },
      schema: {
        operationId: 'listArchivedNodes',
        summary: 'Archived nodes, newest first',
        tags,
        params: StructureParams,
        response: { 200: Type.Object({ agents: Type.Array(ArchivedNodeSchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => ({ agents: app.nodes.archive(scopeOf(request).structureId) }),
  );

  server.get(
    '/api/org/structures/:structure_id/log',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'params' } },
      schema: {
        operationId: 'getWorkspaceLog',
        summary: 'The workspace log of decisions and milestones, newest first',
        tags,
        params: StructureParams,
        querystring: LogQuerySchema,
        response: { 200: Type.Object({ entries: Type.Array(LogEntrySchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => ({ entries: await app.workspaceLog.read(scopeOf(request).structureId, request.query.limit ?? LOG_LIMIT.default) }),
  );
};
