/** Structure routes: list, detail, create from a template, archive, log (API.md §5). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { StructureParams, problems } from '../schemas/common.js';
import { scopeOf } from '../scope.js';
import {
  ArchivedNodeSchema,
  CreateStructureBody,
  CreatedStructureSchema,
  LogEntrySchema,
  StructureDetailSchema,
  StructureSummarySchema,
} from '../schemas/workspaces.js';

/** Structures and their read-only views. */
export const structureRoutes: FastifyPluginAsyncTypebox<{ app: App }> = async (server, { app }) => {
  const tags = ['structures'];
  const security = [{ bearer: [] }];

  server.get(
    '/api/org/structures',
    {
      config: { access: { kind: 'person' } },
      schema: {
        summary: 'Structures the caller can access, with the caller’s role',
        tags,
        security,
        response: { 200: Type.Object({ structures: Type.Array(StructureSummarySchema) }), ...problems(401, 403) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      return { structures: app.workspaces.summaries(principal.kind === 'admin' ? null : principal.id) };
    },
  );

  server.post(
    '/api/org/structures',
    {
      config: { access: { kind: 'person' } },
      schema: {
        summary: 'Create a structure from a template; the caller becomes its owner',
        tags,
        security,
        body: CreateStructureBody,
        response: { 201: CreatedStructureSchema, ...problems(400, 401, 403, 413, 415) },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const detail = await app.workspaces.create({
        name: request.body.name,
        template: request.body.template,
        ownerId: principal.kind === 'user' ? principal.id : null,
      });
      return reply.code(201).send({ ...detail, role: 'owner' as const });
    },
  );

  server.get(
    '/api/org/structures/:structure_id',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'params' } },
      schema: {
        summary: 'Structure detail with every node',
        tags,
        security,
        params: StructureParams,
        response: { 200: StructureDetailSchema, ...problems(400, 401, 404) },
      },
    },
    async (request) => app.workspaces.detail(scopeOf(request).structureId),
  );

  server.get(
    '/api/org/structures/:structure_id/archive',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'params' } },
      schema: {
        summary: 'Archived nodes, newest first',
        tags,
        security,
        params: StructureParams,
        response: { 200: Type.Object({ agents: Type.Array(ArchivedNodeSchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => ({ agents: app.workspaces.archive(scopeOf(request).structureId) }),
  );

  server.get(
    '/api/org/structures/:structure_id/log',
    {
      config: { access: { kind: 'structure', action: 'read', from: 'params' } },
      schema: {
        summary: 'The workspace log of decisions and milestones, newest first',
        tags,
        security,
        params: StructureParams,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }) }),
        response: { 200: Type.Object({ entries: Type.Array(LogEntrySchema) }), ...problems(400, 401, 404) },
      },
    },
    async (request) => ({ entries: await app.workspaces.readLog(scopeOf(request).structureId, request.query.limit) }),
  );
};
