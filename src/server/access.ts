/**
 * Authentication and authorization hooks. Each route declares `config.access`; these
 * hooks resolve the bearer token, resolve the route's scope from the one place it
 * declares, apply the role matrix of core/auth in one place, and hand the authorized
 * scope to the handler as `request.scope`. No route handler checks roles or reads
 * scope ids itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { App } from '../app.js';
import { hashToken, type Principal } from '../core/auth/index.js';
import { forbidden, invalid, isOrgError, notFound, unauthorized } from '../core/errors.js';
import { assertMatches, assertOneScope, declaredValue, placeName, type RunScope, type ScopePlace, type StructureScope } from './scope.js';
import { describeField } from './problem.js';
import type { AuthFailureHook } from './http/rate-limit.js';
import type { AccessRule } from './types.js';

/**
 * Who acts, in one form wherever it is recorded (node timelines, skill commits): a
 * user's e-mail address (what people recognise in `org skills history`), `admin`, or
 * `mcp-key:<key id>`.
 */
export function actorOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (!principal) return 'unknown';
  if (principal.kind === 'user') return principal.user.email;
  if (principal.kind === 'run') return `delegation:${principal.run.roleId}`;
  return principal.kind === 'mcp' ? `mcp-key:${principal.id}` : 'admin';
}

/** The bearer token of a request, if any. */
export function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * SHA-256 of the request's bearer token, hashed once per request however many places
 * need it (the per-token rate limit and authentication).
 */
export function bearerHashOf(request: FastifyRequest): string | undefined {
  if (request.bearerHash === undefined) {
    const token = bearerOf(request);
    request.bearerHash = token ? hashToken(token) : null;
  }
  return request.bearerHash ?? undefined;
}

/** What access resolution reads of the app: authentication and the role matrix, structures, where a run is, and the sync with other instances. */
type AccessDeps = Pick<App, 'access' | 'chat' | 'structures' | 'sync'>;

/**
 * Registers the access hooks; every `/api/org` route must declare `config.access`.
 * `onAuthFailure` is handed every failed authentication (the per-address limit of the
 * rate limiter); absent, the 401 is answered as is.
 */
export function registerAccess(server: FastifyInstance, app: AccessDeps, onAuthFailure?: AuthFailureHook): void {
  const refuse = (request: FastifyRequest, reply: FastifyReply, error: Error, done: (error: Error) => void): void => {
    if (onAuthFailure) onAuthFailure(request, reply, error, done);
    else done(error);
  };
  // Declared, so that every request object has the same shape from the start (V8 keeps
  // property reads fast on objects that do not grow new properties one by one).
  server.decorateRequest('accessRule', undefined);
  server.decorateRequest('principal', undefined);
  server.decorateRequest('scope', undefined);
  server.decorateRequest('bearerHash', undefined);

  server.addHook('onRoute', (route) => {
    const access = (route.config as { access?: AccessRule } | undefined)?.access;
    // The rule is handed to the request by the route itself: Fastify's `request.routeOptions`
    // builds a new object on every read, and the hooks below read the rule three times.
    if (access) route.onRequest = [...hooksOf(route.onRequest), ruleHook(access)];
    if (!access && route.url.startsWith('/api/org') && route.method !== 'HEAD') {
      throw new Error(`route ${String(route.method)} ${route.url} declares no access rule`);
    }
    if (access?.kind === 'run' && !route.url.includes(':run_id')) {
      throw new Error(`route ${String(route.method)} ${route.url} is a run route without a :run_id path parameter`);
    }
    if (access?.kind === 'structure' && access.from === 'params' && !route.url.includes(':structure_id')) {
      throw new Error(`route ${String(route.method)} ${route.url} reads its structure from the path but has no :structure_id`);
    }
  });

  // These hooks run on every request: they are callback hooks that finish at once when
  // nothing needs waiting for (a known token, a filesystem home), so a request costs no
  // promise and no turn of the microtask queue for each of them.

  // preParsing: before the body is read, and before the rate limit (a route's own
  // preParsing hook, so it runs after this one) counts the request under its token —
  // only a token that authenticated gets a window; a failure is counted per address.
  server.addHook('preParsing', (request, reply, payload, done) => {
    const rule = request.accessRule;
    if (!rule || rule.kind === 'public' || rule.kind === 'signed') return done(null, payload);
    const hash = bearerHashOf(request);
    if (!hash) return refuse(request, reply, unauthorized('a bearer token is required (Authorization: Bearer <token>)'), done);
    const known = app.access.authenticateKnown(hash);
    if (known) {
      request.principal = known;
      return done(null, payload);
    }
    app.access.authenticateHash(hash).then((principal) => {
      if (!principal) return refuse(request, reply, unauthorized('the bearer token is unknown or revoked'), done);
      request.principal = principal;
      done(null, payload);
    }, done);
  });

  // Every API request, whatever its access rule: one value per scope id.
  server.addHook('preValidation', (request, _reply, done) => {
    if (request.accessRule) assertOneScope(request);
    done();
  });

  server.addHook('preHandler', (request, _reply, done) => {
    const rule = request.accessRule;
    if (!rule) return done();
    // Instances sharing a store: what another instance changed is in before the scope is resolved.
    const syncing = rule.kind === 'public' && rule.local ? undefined : app.sync();
    if (syncing) syncing.then(() => decide(app, request, rule, done), done);
    else decide(app, request, rule, done);
  });
}

/** A route's hook that hands its access rule to each of its requests (`request.accessRule`). */
function ruleHook(rule: AccessRule): onRequestHookHandler {
  return (request, _reply, done) => {
    request.accessRule = rule;
    done();
  };
}

/** A route option's hooks as a list (absent, one, or several). */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** Resolves a request's access and calls `done` (with the refusal, if any). */
function decide(app: AccessDeps, request: FastifyRequest, rule: AccessRule, done: (error?: Error) => void): void {
  let pending: Promise<void> | undefined;
  try {
    pending = resolveAccess(app, request, rule);
  } catch (error) {
    return done(error as Error);
  }
  if (pending) pending.then(() => done(), done);
  else done();
}

/**
 * Applies a route's rule to an authenticated request and sets `request.scope`; throws
 * when refused. A promise only for run routes (where the run is has to be looked up).
 */
function resolveAccess(app: AccessDeps, request: FastifyRequest, rule: AccessRule): Promise<void> | undefined {
  if (rule.kind === 'public') return undefined;
  if (rule.kind === 'authenticated') {
    if (request.principal?.kind === 'run') throw forbidden(RUN_TOKEN_ROUTES);
    return undefined;
  }
  if (rule.kind === 'signed') {
    const scope = resolveSigned(app, request, rule);
    if (scope) request.scope = scope;
    return undefined;
  }
  const principal = request.principal;
  if (!principal) throw unauthorized('a bearer token is required');
  if (principal.kind === 'run') return resolveRunToken(app, request, principal, rule);
  switch (rule.kind) {
    case 'admin':
      app.access.requireAdmin(principal);
      return undefined;
    case 'person':
      app.access.requirePerson(principal);
      return undefined;
    case 'run':
      return resolveRun(app, request, principal, rule).then((scope) => {
        request.scope = scope;
      });
    case 'structure': {
      const scope = resolveStructure(app, request, principal, rule);
      if (scope) request.scope = scope;
      return undefined;
    }
  }
}

/** What a run token may do, said when it tries anything else. */
const RUN_TOKEN_ROUTES =
  'a run token may only send messages to other nodes of its structure (delegations of its run), read that structure and its chat history, and follow or cancel the runs its run delegated';

/**
 * A run token's request (API.md §10): only routes that declare a `runToken` use, in the
 * token's own structure (another one is unknown to it), and for run routes only the runs
 * the token's run delegated.
 */
function resolveRunToken(app: AccessDeps, request: FastifyRequest, principal: Extract<Principal, { kind: 'run' }>, rule: AccessRule): Promise<void> | undefined {
  const use = rule.kind === 'structure' || rule.kind === 'run' ? rule.runToken : undefined;
  if (!use) throw forbidden(RUN_TOKEN_ROUTES);
  if (rule.kind === 'structure') {
    const scope = resolveStructure(app, request, principal, rule);
    if (scope) request.scope = scope;
    return undefined;
  }
  if (rule.kind !== 'run') throw forbidden(RUN_TOKEN_ROUTES);
  return resolveRun(app, request, principal, rule).then(async (scope) => {
    if (!(await app.chat.delegatedFrom(scope.runId, principal.id))) {
      throw forbidden(`run ${scope.runId} was not delegated by this token's run; a run token follows and cancels only the runs its run delegated`);
    }
    request.scope = scope;
  });
}

async function resolveRun(app: AccessDeps, request: FastifyRequest, principal: Principal, rule: Extract<AccessRule, { kind: 'run' }>): Promise<RunScope> {
  const runId = declaredRunId(request);
  const where = await app.chat.locate(runId);
  // A run of a structure the caller cannot see is answered exactly like an unknown run.
  if (!where) throw notFound(`run ${runId} not found`);
  let grant;
  try {
    grant = app.access.authorize(principal, rule.action, where.structureId, where.roleId);
  } catch (error) {
    if (isOrgError(error) && error.code === 'not_found') throw notFound(`run ${runId} not found`);
    throw error;
  }
  assertMatches(request, 'structure_id', where.structureId);
  assertMatches(request, 'role_id', where.roleId);
  return { structureId: where.structureId, roleId: where.roleId, nodeId: where.nodeId, runId, grant };
}

/** The scope of a signed inbound request: the structure and node it names, which must exist. */
function resolveSigned(app: AccessDeps, request: FastifyRequest, rule: Extract<AccessRule, { kind: 'signed' }>): StructureScope | undefined {
  if (!rule.from) return undefined;
  const structureId = required(request, rule.from, 'structure_id');
  if (!app.structures.has(structureId)) throw notFound(`structure ${structureId} not found`);
  if (!rule.node) return { structureId, grant: { role: 'channel' } };
  const roleId = required(request, rule.node, 'role_id');
  return { structureId, roleId, grant: { role: 'channel' } };
}

function required(request: FastifyRequest, place: ScopePlace, name: 'structure_id' | 'role_id'): string {
  const value = declaredValue(request, place, name);
  if (value === undefined) {
    const path = `${placeName(place)}.${name}`;
    throw invalid(`${describeField(path)} is required`, [{ path, message: 'is required' }]);
  }
  return value;
}

function declaredRunId(request: FastifyRequest): string {
  const params = request.params as Record<string, unknown> | undefined;
  const value = params?.run_id;
  return typeof value === 'string' ? value : '';
}

function resolveStructure(
  app: AccessDeps,
  request: FastifyRequest,
  principal: Principal,
  rule: Extract<AccessRule, { kind: 'structure' }>,
): StructureScope | undefined {
  let structureId = declaredValue(request, rule.from, 'structure_id');
  if (structureId === undefined) {
    if (rule.optional && principal.kind === 'mcp') structureId = principal.key.structure_id;
    else if (rule.optional && principal.kind === 'admin') return undefined;
    else if (rule.instance && app.access.isInstanceAdmin(principal)) return undefined;
    else if (rule.unscoped && principal.kind !== 'mcp') return undefined;
    else structureId = required(request, rule.from, 'structure_id');
  }
  const roleId = rule.node ? required(request, rule.node, 'role_id') : undefined;
  // A node key that names no structure acts on its own; any id it names elsewhere must agree.
  assertMatches(request, 'structure_id', structureId);
  const grant = app.access.authorize(principal, rule.action, structureId, roleId, rule.archived === true);
  return roleId === undefined ? { structureId, grant } : { structureId, roleId, grant };
}
