/**
 * Reading the audit log: a structure's entries (owner) and every entry of the instance
 * (administrator), newest first, filtered and paged. Nothing here writes: entries are
 * appended by the audit hooks and cannot be changed through the API.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { App } from '../../app.js';
import type { AuditReadQuery } from '../../core/audit/index.js';
import { AUDIT_LIMIT, AuditPageSchema, AuditQuerySchema, type AuditQuery } from '../../core/schemas/index.js';
import { StructureParams, problems } from '../schemas/common.js';
import { scopeOf } from '../scope.js';

/** The read query of the log from the route's query string. */
function readQuery(query: AuditQuery, structureId?: string): AuditReadQuery {
  return {
    limit: query.limit ?? AUDIT_LIMIT.default,
    ...(structureId !== undefined ? { structureId } : {}),
    ...(query.action !== undefined ? { action: query.action } : {}),
    ...(query.actor !== undefined ? { actor: query.actor } : {}),
    ...(query.since !== undefined ? { since: query.since } : {}),
    ...(query.until !== undefined ? { until: query.until } : {}),
    ...(query.before !== undefined ? { before: query.before } : {}),
  };
}

/** Audit routes. */
export const auditRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'audit'> }> = async (server, { app }) => {
  const tags = ['audit'];

  server.get(
    '/api/org/structures/:structure_id/audit',
    {
      config: { access: { kind: 'structure', action: 'admin_structure', from: 'params' } },
      schema: {
        operationId: 'getStructureAudit',
        summary: 'The structure’s audit log, newest first: who changed what, when and from where (owner)',
        tags,
        params: StructureParams,
        querystring: AuditQuerySchema,
        response: { 200: AuditPageSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await app.audit.read(readQuery(request.query, scopeOf(request).structureId))),
  );

  server.get(
    '/api/org/audit',
    {
      config: { access: { kind: 'admin' } },
      schema: {
        operationId: 'getAudit',
        summary: 'Every entry of the instance’s audit log, newest first (administrator)',
        tags,
        querystring: AuditQuerySchema,
        response: { 200: AuditPageSchema, ...problems(400, 401, 403) },
      },
    },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await app.audit.read(readQuery(request.query))),
  );
};
