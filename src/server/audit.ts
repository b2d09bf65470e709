/**
 * The audit hooks. Each state-changing route declares `config.audit`: the action it
 * performs and how to name its target (from the path, the body or its answer), or
 * `false` when it changes nothing an audit covers (a search, a chat message). A route
 * under `/api/org` other than GET that declares neither fails at start-up, so a new
 * route cannot be forgotten.
 *
 * A successful action (status below 400) is appended to the audit log before its answer
 * is sent: an acknowledged action always has its entry. The first use of a token from a
 * new client (address and user agent) is an entry too.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preSerializationHookHandler } from 'fastify';
import type { App } from '../app.js';
import type { AuditOrigin } from '../core/audit/index.js';
import type { Principal } from '../core/auth/index.js';
import type { AuditAction, AuditActor, AuditTarget } from '../core/schemas/index.js';
import { errorFields } from '../core/util/index.js';

/** How a route is audited. */
export interface AuditRule {
  /** The action recorded, or how to tell it from the request (an import: its dry run or the real one). */
  action: AuditAction | ((request: FastifyRequest) => AuditAction);
  /** True when this request changes nothing after all: no entry. */
  skip?: (request: FastifyRequest) => boolean;
  /**
   * Record refused attempts too (answered 4xx to an authenticated caller), with their
   * status: an upload the server would not take is worth knowing about (imports).
   */
  refused?: true;
  /** The target, from the request and the handler's answer (the object before serialization). */
  target?: (request: FastifyRequest, answer: unknown) => AuditTarget | null;
  /** The structure when the access layer resolved none (a structure being created, an invite accepted). */
  structure?: (request: FastifyRequest, answer: unknown) => string | null;
  /** The actor of a route without a bearer (invite acceptance: the person who accepted). */
  actor?: (request: FastifyRequest, answer: unknown) => AuditActor | null;
}

/** Reads a member of the route's params, body or answer, as text. */
export function field(source: unknown, ...path: string[]): string | null {
  let value: unknown = source;
  for (const name of path) {
    if (typeof value !== 'object' || value === null) return null;
    value = (value as Record<string, unknown>)[name];
  }
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/** A target named by a member of the path parameters. */
export const fromParams =
  (type: AuditTarget['type'], name: string) =>
  (request: FastifyRequest): AuditTarget | null => {
    const id = field(request.params, name);
    return id ? { type, id } : null;
  };

/** A target named by a member of the request body. */
export const fromBody =
  (type: AuditTarget['type'], ...path: string[]) =>
  (request: FastifyRequest): AuditTarget | null => {
    const id = field(request.body, ...path);
    return id ? { type, id } : null;
  };

/** A target named by a member of the answer. */
export const fromAnswer =
  (type: AuditTarget['type'], ...path: string[]) =>
  (_request: FastifyRequest, answer: unknown): AuditTarget | null => {
    const id = field(answer, ...path);
    return id ? { type, id } : null;
  };

/** Who a principal is, for an entry. */
export function actorOf(principal: Principal): AuditActor {
  switch (principal.kind) {
    case 'admin':
      return { kind: 'admin', id: 'admin', email: null };
    case 'user':
      return { kind: 'user', id: principal.user.id, email: principal.user.email };
    case 'mcp':
      return { kind: 'mcp', id: principal.key.id, email: null };
    case 'run':
      return { kind: 'run', id: principal.id, email: null };
  }
}

/** Where a request came from. */
export function originOf(request: FastifyRequest): AuditOrigin {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' && agent.length > 0 ? agent.slice(0, 512) : null, requestId: String(request.id) };
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What makes a client new for a token: who, from which address, with which user agent (as sent). */
interface ClientSeen {
  kind: Principal['kind'];
  id: string;
  ip: string;
  userAgent: string | string[] | undefined;
}

/**
 * The client each connection was last found already known (or recorded) as. A client
 * once known stays known, so the later requests of a keep-alive connection from the same
 * client skip building its audit key; any change (another token, a forwarded address, a
 * user agent) is looked up again.
 */
const knownOnConnection = new WeakMap<Socket, ClientSeen>();

function clientOf(request: FastifyRequest, principal: Principal): ClientSeen {
  return { kind: principal.kind, id: principal.id, ip: request.ip, userAgent: request.headers['user-agent'] };
}

function isKnownOn(known: ClientSeen | undefined, request: FastifyRequest, principal: Principal): boolean {
  return (
    known !== undefined &&
    known.id === principal.id &&
    known.kind === principal.kind &&
    known.ip === request.ip &&
    known.userAgent === request.headers['user-agent']
  );
}

/** Registers the audit hooks. */
export function registerAudit(server: FastifyInstance, app: Pick<App, 'audit'>): void {
  const keepAnswer: preSerializationHookHandler<unknown> = (request, _reply, payload, done) => {
    request.auditAnswer = payload;
    done(null, payload);
  };
  /** The recording hook of one audited route (the rule is the route's, not read per request). */
  const recordAction =
    (rule: AuditRule): onSendHookHandler =>
    (request, reply, payload, done) => {
      const refused = reply.statusCode >= 400 && !(rule.refused && reply.statusCode < 500 && request.principal);
      if (refused || rule.skip?.(request)) return done(null, payload);
      record(app, request, reply, rule).then(() => done(null, payload), done);
    };
  server.decorateRequest('auditAnswer', undefined);
  server.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const rule = (route.config as { audit?: AuditRule | false } | undefined)?.audit;
    // Only routes with an audit rule run the hooks that record it: reads pay nothing for them.
    if (rule) {
      route.preSerialization = [...hooksOf(route.preSerialization), keepAnswer];
      route.onSend = [...hooksOf(route.onSend), recordAction(rule)];
    }
    if (!route.url.startsWith('/api/org') || methods.every((method) => READS.has(String(method)))) return;
    if (rule === undefined) throw new Error(`route ${methods.join(',')} ${route.url} declares no audit rule (an action, or false)`);
  });

  // After authentication and scope: a token's first use from a new client.
  // Callback hooks: they run on every request and, for a known client and a read, finish at once.
  server.addHook('preHandler', (request, _reply, done) => {
    const principal = request.principal;
    // Run tokens live as long as one turn: their first use is not news.
    if (!principal || principal.kind === 'admin' || principal.kind === 'run') return done();
    const socket = request.raw.socket;
    if (isKnownOn(knownOnConnection.get(socket), request, principal)) return done();
    const client = clientOf(request, principal);
    const actor = actorOf(principal);
    const origin = originOf(request);
    if (app.audit.isKnownClient(actor, origin.ip, origin.userAgent)) {
      knownOnConnection.set(socket, client);
      return done();
    }
    app.audit.noteClient(actor, origin, principal.kind === 'mcp' ? principal.key.structure_id : null).then(
      () => {
        knownOnConnection.set(socket, client);
        done();
      },
      (error: unknown) => {
        request.log.error({ ...errorFields(error) }, 'audit: a new client could not be recorded');
        done();
      },
    );
  });

}

/** A route option's hooks as a list (absent, one, or several). */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

async function record(app: Pick<App, 'audit'>, request: FastifyRequest, reply: FastifyReply, rule: AuditRule): Promise<void> {
  const answer = request.auditAnswer;
  const actor = request.principal ? actorOf(request.principal) : (rule.actor?.(request, answer) ?? { kind: 'anonymous', id: '', email: null });
  try {
    await app.audit.record({
      ...originOf(request),
      action: typeof rule.action === 'function' ? rule.action(request) : rule.action,
      actor,
      structureId: request.scope?.structureId ?? rule.structure?.(request, answer) ?? null,
      target: rule.target?.(request, answer) ?? null,
      status: reply.statusCode,
    });
  } catch (error) {
    // The action is done: its answer stands, and the missing entry is reported loudly.
    request.log.error({ ...errorFields(error), action: typeof rule.action === 'function' ? 'computed' : rule.action }, 'audit: an entry could not be written');
  }
}
