/** Fastify type augmentation: the principal on each request and the access rule on each route. */
import type { Action, Grant, Principal } from '../core/auth/index.js';

/** How a route is guarded; declared in the route's `config.access`. */
export type AccessRule =
  /** No bearer needed (health, OpenAPI, invite acceptance, signed webhooks). */
  | { kind: 'public' }
  /** Any valid bearer. */
  | { kind: 'authenticated' }
  /** A person (user or administrator), not an MCP node key. */
  | { kind: 'person' }
  /** The instance administrator only. */
  | { kind: 'admin' }
  /**
   * An action of the role matrix on the structure named by `structure_id` (path, query
   * or body). `optional`: a missing structure_id is allowed for node keys (their own
   * structure) and the administrator. `node`: also check the node named by `role_id`.
   */
  | { kind: 'structure'; action: Action; node?: boolean; optional?: boolean }
  /** An action on the node of the run named by the `run_id` path parameter. */
  | { kind: 'run'; action: Action };

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller (absent on public routes without a bearer). */
    principal?: Principal;
    /** The grant of a structure-scoped route, after authorization. */
    grant?: Grant;
    /** The structure a structure-scoped route was authorized for. */
    structureId?: string;
  }
  interface FastifyContextConfig {
    access?: AccessRule;
  }
}
