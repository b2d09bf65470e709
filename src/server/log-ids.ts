/**
 * Ids in request logs: once the access layer has resolved what a request may touch,
 * every later log record of the request (its errors, the completion line) names the
 * structure, node and run it acts on. The ids come from the resolved scope (or the
 * authenticated node key) only, never from what the request says: a request refused
 * before its scope is resolved names nothing it asked for.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app.js';
import type { RunScope } from './scope.js';

/** Ids a request's log records carry. */
export interface LogIds {
  structure_id?: string;
  node_id?: string;
  run_id?: string;
}

/** Adds `ids` to every later log record of the request, its reply's included. */
export function addLogIds(request: FastifyRequest, reply: FastifyReply, ids: LogIds): void {
  const defined: LogIds = {};
  let any = false;
  if (ids.structure_id) any = Boolean((defined.structure_id = ids.structure_id));
  if (ids.node_id) any = Boolean((defined.node_id = ids.node_id));
  if (ids.run_id) any = Boolean((defined.run_id = ids.run_id));
  if (!any) return;
  // The request's logger is already its own child (it carries the request id): the ids
  // join its bindings rather than a second child being made on every request.
  const log = request.log as FastifyRequest['log'] & { setBindings?: (bindings: Record<string, string>) => void };
  if (typeof log.setBindings === 'function') log.setBindings(defined as Record<string, string>);
  else request.log = request.log.child(defined as Record<string, string>);
  // The reply writes the completion and error lines with its own logger.
  reply.log = request.log;
}

/** The node id of `roleId` in a structure, when such a node exists (a route may be about to create it). */
function nodeIdOf(app: Pick<App, 'nodes'>, structureId: string, roleId: string | undefined): string | undefined {
  if (roleId === undefined) return undefined;
  try {
    return app.nodes.record(structureId, roleId).id;
  } catch {
    return undefined;
  }
}

/**
 * Registers the hook that names the resolved scope in the request's logs; it runs after
 * the access layer's hooks (register it after them).
 */
export function registerLogIds(server: FastifyInstance, app: Pick<App, 'nodes'>): void {
  // A callback hook: it runs on every request and waits on nothing.
  server.addHook('preHandler', (request, reply, done) => {
    const scope = request.scope;
    if (scope) {
      const run = scope as Partial<RunScope>;
      addLogIds(request, reply, {
        structure_id: scope.structureId,
        node_id: run.nodeId ?? nodeIdOf(app, scope.structureId, scope.roleId),
        run_id: run.runId,
      });
      return done();
    }
    // A node key acts on its own node wherever its route declares no scope (/mcp).
    const principal = request.principal;
    if (principal?.kind === 'mcp') {
      addLogIds(request, reply, { structure_id: principal.key.structure_id, node_id: nodeIdOf(app, principal.key.structure_id, principal.key.role_id) });
    }
    done();
  });
}
