/**
 * Finding runs by the start of their id (`GET /api/org/chat/runs`), as `org chat --run`
 * takes a prefix the way other commands take one of a structure's or a key's id. The
 * structures searched are the request's scope when it has one, else every structure the
 * caller can see; each run found is then authorized as following it would be, so the
 * answer lists exactly the runs the caller may follow.
 */
import type { FastifyRequest } from 'fastify';
import type { App } from '../../app.js';
import { isOrgError } from '../../core/errors.js';
import { RUN_MATCHES_MAX, type RunMatches } from '../../core/schemas/index.js';
import type { RunLocation, RunSearchScope } from '../../core/chat/store.js';

/** The runs starting with `prefix` the request's caller may follow (`chat`), by id. */
export async function findVisibleRuns(app: Pick<App, 'chat' | 'access' | 'structures'>, request: FastifyRequest, prefix: string): Promise<RunMatches> {
  const principal = request.principal!;
  const scope: RunSearchScope = request.scope
    ? { structureIds: [request.scope.structureId] }
    : { structureIds: principal.kind === 'admin' ? 'all' : app.structures.summaries(principal.id).map((structure) => structure.id) };
  const mayFollow = (where: RunLocation): boolean => {
    try {
      app.access.authorize(principal, 'chat', where.structureId, where.roleId);
      return true;
    } catch (error) {
      if (isOrgError(error) && (error.code === 'forbidden' || error.code === 'not_found')) return false;
      throw error;
    }
  };
  // One more than listed tells whether there are more; runs of nodes the caller may not chat with are left out.
  const found = (await app.chat.findRuns(prefix, scope, RUN_MATCHES_MAX * 4)).filter(mayFollow);
  return {
    runs: found.slice(0, RUN_MATCHES_MAX).map((where) => ({ run_id: where.runId, structure_id: where.structureId, role_id: where.roleId })),
    more: found.length > RUN_MATCHES_MAX,
  };
}
