/** Fastify type augmentation: the principal and resolved scope on each request, the access rule on each route. */
import type { Action, Principal } from '../core/auth/index.js';
import type { AuditRule } from './audit.js';
import type { ConnectionStats } from './http/connections.js';
import type { OrgMetrics } from './metrics/index.js';
import type { ScopePlace, StructureScope } from './scope.js';

/** How a route is guarded; declared in the route's `config.access`. */
export type AccessRule =
  /**
   * No bearer needed (health, OpenAPI, invite acceptance, signed webhooks). `local`: the
   * answer is about this instance alone (health, readiness, OpenAPI), so it does not wait
   * to bring in what other instances sharing a store changed, and a store that does not
   * answer cannot fail it.
   */
  | { kind: 'public'; local?: true }
  /** Any valid bearer. */
  | { kind: 'authenticated' }
  /** A person (user or administrator), not an MCP node key. */
  | { kind: 'person' }
  /** The instance administrator only. */
  | { kind: 'admin' }
  /**
   * An action of the role matrix on the structure whose `structure_id` is read from
   * `from` (and, with `node`, on the node whose `role_id` is read from that place).
   * When the request names no structure_id: `optional` lets node keys through (their own
   * structure) and the administrator token (every structure); `instance` lets the
   * instance administrator through with no scope (a change of the instance library,
   * API.md §10); `unscoped` lets every caller through with no scope (the handler serves
   * what needs none: an instance skill, or one of the caller's own structures').
   * `archived`: a structure deleted into the archive is found too (its restore route);
   * every other route answers 404 for it.
   */
  | { kind: 'structure'; action: Action; from: ScopePlace; node?: ScopePlace; optional?: boolean; instance?: true; unscoped?: true; archived?: true; runToken?: RunTokenUse }
  /** An action on the node of the run named by the `run_id` path parameter. */
  | { kind: 'run'; action: Action; runToken?: RunTokenUse }
  /**
   * No bearer: the request is authenticated by the route's own signature check (the
   * inbound channels). With `from`, the structure (and node) it targets are read from
   * that place and must exist; without, the route derives them from the signed content.
   */
  | { kind: 'signed'; from?: ScopePlace; node?: ScopePlace };

/**
 * What a run token (a container turn's bearer, API.md §10) may do on a route; a route
 * without it answers a run token 403. `delegate`: the chat message routes, each message a
 * delegation of the token's run; `read`: reads of the token's structure; `own_run`: run
 * routes, for the runs the token's run delegated.
 */
export type RunTokenUse = 'delegate' | 'read' | 'own_run';

declare module 'fastify' {
  interface FastifyInstance {
    /** Chat event streams open right now (for metrics). */
    sseStreams: { open: number };
    /** What the connection caps have done (open connections, refusals per address). */
    connectionStats: ConnectionStats;
    /** The Prometheus metrics, when turned on (`--metrics`, `--metrics-port`). */
    orgMetrics?: OrgMetrics;
  }
  interface FastifyRequest {
    /** The route's access rule (`config.access`), handed over by the route; absent on routes outside the API. */
    accessRule?: AccessRule;
    /** The authenticated caller (absent on public routes without a bearer). */
    principal?: Principal;
    /** The authorized scope of a structure or run route, resolved once by the access layer. */
    scope?: StructureScope;
    /** SHA-256 of the bearer token, computed once per request (null: no bearer token). */
    bearerHash?: string | null;
    /** The answer of an audited route before serialization (its target may be named there). */
    auditAnswer?: unknown;
  }
  interface FastifyContextConfig {
    access?: AccessRule;
    /** How the route is audited; `false` for routes that change nothing the audit covers. */
    audit?: AuditRule | false;
  }
}
