/**
 * Structure routes: list, detail, create from a template, rename, delete into the archive
 * and restore (owners), the node archive, log (API.md §5).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { NoContent, StructureParams, problems } from '../schemas/common.js';
import { sendJsonBytes } from '../serialization.js';
import { scopeOf } from '../scope.js';
import { actorOf } from '../access.js';
import { field, fromAnswer, fromParams } from '../audit.js';
import {
  ArchivedNodeSchema,
  ArchivedStructureSchema,
  StructurePatchSchema,
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
    '/api/org/structures/archived',
    {
      config: { access: { kind: 'person' } },
      schema: {
        operationId: 'listArchivedStructures',
        summary: 'Structures the caller owns that were deleted into the archive, newest first',
        tags,
        response: { 200: Type.Object({ structures: Type.Array(ArchivedStructureSchema) }), ...problems(401, 403) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      return { structures: app.structures.archived(principal.kind === 'admin' ? null : principal.id) };
    },
  );

  server.patch(
    '/api/org/structures/:structure_id',
    {
      config: {
        access: { kind: 'structure', action: 'admin_structure', from: 'params' },
        audit: { action: 'structure.rename', target: fromParams('structure', 'structure_id') },
      },
      schema: {
        operationId: 'updateStructure',
        summary: 'Rename a structure (owner)',
        tags,
        params: StructureParams,
        body: StructurePatchSchema,
        response: { 200: StructureSummarySchema, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const record = await app.structures.rename(scopeOf(request).structureId, request.body.name.trim() || request.body.name, actorOf(request));
      return app.structures.summary(record, principal.kind === 'admin' ? null : principal.id);
    },
  );

  server.delete(
    '/api/org/structures/:structure_id',
    {
      config: {
        access: { kind: 'structure', action: 'admin_structure', from: 'params' },
        audit: { action: 'structure.delete', target: fromParams('structure', 'structure_id') },
      },
      schema: {
        operationId: 'deleteStructure',
        summary: 'Delete a structure into the archive (owner): every request to it is answered 404 until it is restored',
        tags,
        params: StructureParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.structures.archive(scopeOf(request).structureId, actorOf(request));
      return reply.code(204).send(null);
    },
  );

  server.post(
    '/api/org/structures/:structure_id/restore',
    {
      config: {
        access: { kind: 'structure', action: 'admin_structure', from: 'params', archived: true },
        audit: { action: 'structure.restore', target: fromParams('structure', 'structure_id') },
      },
      schema: {
        operationId: 'restoreStructure',
        summary: 'Restore a structure from the archive (owner); 409 when it is not archived',
        tags,
        params: StructureParams,
        response: { 200: StructureSummarySchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const record = await app.structures.restore(scopeOf(request).structureId, actorOf(request));
      return app.structures.summary(record, principal.kind === 'admin' ? null : principal.id);
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
