/**
 * Authentication and authorization hooks. Each route declares `config.access`; these
 * hooks resolve the bearer token and apply the role matrix of core/auth in one place,
 * so no route handler checks roles itself.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { App } from '../app.js';
import { invalid, notFound, unauthorized } from '../core/errors.js';
import type { AccessRule } from './types.js';

/** The bearer token of a request, if any. */
export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function pick(source: unknown, name: string): string | undefined {
  if (source && typeof source === 'object' && name in source) {
    const value = (source as Record<string, unknown>)[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/** Registers the access hooks; every `/api/org` route must declare `config.access`. */
export function registerAccess(server: FastifyInstance, app: App): void {
  server.addHook('onRoute', (route) => {
    const access = (route.config as { access?: AccessRule } | undefined)?.access;
    if (!access && route.url.startsWith('/api/org') && route.method !== 'HEAD') {
      throw new Error(`route ${String(route.method)} ${route.url} declares no access rule`);
    }
  });

  // preParsing, not onRequest: the per-token rate limit (an onRequest hook) must count
  // requests with unknown tokens too, and authentication still happens before the body is read.
  server.addHook('preParsing', async (request) => {
    const rule = request.routeOptions.config.access;
    if (!rule || rule.kind === 'public') return;
    const token = bearerOf(request);
    if (!token) throw unauthorized('a bearer token is required (Authorization: Bearer <token>)');
    const principal = app.access.authenticate(token);
    if (!principal) throw unauthorized('the bearer token is unknown or revoked');
    request.principal = principal;
  });

  server.addHook('preHandler', async (request) => {
    const rule = request.routeOptions.config.access;
    if (!rule || rule.kind === 'public' || rule.kind === 'authenticated') return;
    const principal = request.principal;
    if (!principal) throw unauthorized('a bearer token is required');
    if (rule.kind === 'admin') return app.access.requireAdmin(principal);
    if (rule.kind === 'person') return app.access.requirePerson(principal);
    if (rule.kind === 'run') {
      const runId = pick(request.params, 'run_id') ?? '';
      const where = app.chat.locate(runId);
      if (!where) throw notFound(`run ${runId} not found`);
      request.grant = app.access.authorize(principal, rule.action, where.structureId, where.roleId);
      request.structureId = where.structureId;
      return;
    }
    const structureId =
      pick(request.params, 'structure_id') ?? pick(request.query, 'structure_id') ?? pick(request.body, 'structure_id');
    if (!structureId) {
      if (rule.optional && principal.kind === 'mcp') {
        request.structureId = principal.key.structure_id;
        request.grant = app.access.authorize(principal, rule.action, principal.key.structure_id);
        return;
      }
      if (rule.optional && principal.kind === 'admin') return;
      throw invalid('structure_id is required', [{ path: 'query.structure_id', message: 'is required' }]);
    }
    const roleId = rule.node
      ? (pick(request.params, 'role_id') ?? pick(request.query, 'role_id') ?? pick(request.body, 'role_id'))
      : undefined;
    request.grant = app.access.authorize(principal, rule.action, structureId, roleId);
    request.structureId = structureId;
  });
}
