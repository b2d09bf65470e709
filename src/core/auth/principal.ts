/**
 * Who is calling, and what they may do. `AccessControl` resolves a bearer token to a
 * principal and applies the role matrix of `roles.ts` to a structure (and node): the
 * single place where API.md §3 is enforced.
 */
import { forbidden, notFound, unauthorized } from '../errors.js';
import type { MemberService } from '../structures/index.js';
import type { KeyService, McpKeyRecord } from './keys.js';
import { ACTION_RULES, type Action, type Role, roleAtLeast } from './roles.js';
import type { RunTokenRecord, RunTokens } from './run-tokens.js';
import { hashToken, sameHash } from './tokens.js';
import type { PublicUser, UserService } from './users.js';

/** The authenticated caller. */
export type Principal =
  | { kind: 'admin'; id: 'admin' }
  /** A user; `admin` when the user is an instance administrator (API.md §10). */
  | { kind: 'user'; id: string; user: PublicUser; admin: boolean }
  | { kind: 'mcp'; id: string; key: McpKeyRecord }
  /** A run-scoped bearer of a container turn (API.md §10): it acts for its run, in its structure. */
  | { kind: 'run'; id: string; run: RunTokenRecord };

/** What an authorized request may rely on. */
export interface Grant {
  /**
   * The caller's effective role in the structure: `owner` for the administrator, `node`
   * for an MCP node key, `channel` for a signed inbound channel (e-mail, messaging),
   * `run` for a run token.
   */
  role: Role | 'node' | 'channel' | 'run';
}

export interface AccessControlOptions {
  users: UserService;
  keys: KeyService;
  structures: { has(id: string, archived?: boolean): boolean };
  members: Pick<MemberService, 'roleOf'>;
  /** Run tokens of container turns (absent: none authenticate). */
  runTokens?: RunTokens;
  adminToken?: string;
}

/** Authentication and authorization of API calls. */
export class AccessControl {
  /** Hash of the administrator token, computed once. */
  private readonly adminHash: string | undefined;

  constructor(private readonly options: AccessControlOptions) {
    this.adminHash = options.adminToken ? hashToken(options.adminToken) : undefined;
  }

  /** Resolves a bearer token (hashed once, compared in constant time); undefined for unknown or revoked tokens. */
  async authenticate(token: string): Promise<Principal | undefined> {
    return this.authenticateHash(hashToken(token));
  }

  /**
   * The principal of a token hash resolved without waiting, when the administrator's or a
   * user's already known to this instance; undefined means "ask `authenticateHash`".
   */
  authenticateKnown(hash: string): Principal | undefined {
    // A user's token, the usual caller, is found without comparing against the administrator's.
    const user = this.options.users.knownByTokenHash(hash);
    if (user) return userPrincipal(user);
    if (this.adminHash && sameHash(hash, this.adminHash)) return ADMIN;
    const run = this.options.runTokens?.known(hash);
    return run ? runPrincipal(run) : undefined;
  }

  /** Resolves the SHA-256 of a bearer token (see `hashToken`); undefined for unknown or revoked tokens. */
  async authenticateHash(hash: string): Promise<Principal | undefined> {
    const known = this.authenticateKnown(hash);
    if (known) return known;
    const user = await this.options.users.byTokenHash(hash);
    if (user) return userPrincipal(user);
    const key = await this.options.keys.authenticate(hash);
    if (key) return { kind: 'mcp', id: key.id, key };
    const run = await this.options.runTokens?.authenticate(hash);
    return run ? runPrincipal(run) : undefined;
  }

  /**
   * Checks that `principal` may perform `action` in a structure, and on a node when
   * `roleId` is given. Throws 404 when the structure (or the caller's membership) does
   * not exist, 403 when the role is too low or a node key reaches beyond its node. A
   * structure in the archive counts as existing only with `archived` (its restore).
   */
  authorize(principal: Principal, action: Action, structureId: string, roleId?: string, archived = false): Grant {
    const rule = ACTION_RULES[action];
    // Runs on every request: the refusal is built only when refusing (no closure per call).
    if (!this.options.structures.has(structureId, archived)) throw missingStructure(structureId);
    if (principal.kind === 'admin') return OWNER_GRANT;
    if (principal.kind === 'run') {
      // Which routes a run token reaches is the access layer's (config.access.runToken).
      if (principal.run.structureId !== structureId) throw missingStructure(structureId);
      if (action !== 'read' && action !== 'read_history' && action !== 'chat') throw forbidden(`a run token may not ${describe(action)}`);
      return RUN_GRANT;
    }
    if (principal.kind === 'mcp') {
      const key = principal.key;
      if (key.structure_id !== structureId) throw missingStructure(structureId);
      if (rule.mcp === 'no') throw forbidden(`an MCP node key may not ${describe(action)}`);
      if (rule.mcp === 'own_node' && roleId !== undefined && roleId !== key.role_id) {
        throw forbidden(`this MCP key belongs to node ${key.role_id}, not ${roleId}`);
      }
      return { role: 'node' };
    }
    const role = this.options.members.roleOf(structureId, principal.id);
    if (!role) throw missingStructure(structureId);
    if (!roleAtLeast(role, rule.minRole)) throw forbidden(`your role ${role} may not ${describe(action)}; ${rule.minRole} or higher is needed`);
    return { role };
  }

  /**
   * True for the instance administrator: the `ORG_ADMIN_TOKEN` bearer, or a user with
   * `admin` (the first start's user). Only they change instance skills (API.md §10).
   */
  isInstanceAdmin(principal: Principal): boolean {
    return principal.kind === 'admin' || (principal.kind === 'user' && principal.admin);
  }

  /** Requires the instance administrator (the admin token, or a user who is one). */
  requireAdmin(principal: Principal): void {
    if (!this.isInstanceAdmin(principal)) throw forbidden('only the instance administrator may do this');
  }

  /** Requires a user or the administrator (not an MCP node key or a run token). */
  requirePerson(principal: Principal): void {
    if (principal.kind === 'mcp') throw forbidden('an MCP node key may not do this');
    if (principal.kind === 'run') throw forbidden('a run token may not do this');
  }
}

/** The administrator as a principal (one object: it carries nothing per request). */
const ADMIN: Principal = Object.freeze({ kind: 'admin', id: 'admin' });

/** The administrator's grant (the same for every structure). */
const OWNER_GRANT: Grant = Object.freeze({ role: 'owner' });

/** A run token's grant in its own structure. */
const RUN_GRANT: Grant = Object.freeze({ role: 'run' });

/** The principal of a run token. */
function runPrincipal(run: RunTokenRecord): Principal {
  return { kind: 'run', id: run.runId, run };
}

/** A structure that does not exist, or that the caller is no member of: the same 404. */
function missingStructure(structureId: string): Error {
  return notFound(`structure ${structureId} not found`);
}

/** Thrown when no usable bearer token was presented. */
export function missingToken(reason = 'a bearer token is required'): Error {
  return unauthorized(reason);
}

function describe(action: Action): string {
  switch (action) {
    case 'read':
      return 'read this structure';
    case 'read_history':
      return 'read this history';
    case 'chat':
      return 'chat with this node';
    case 'write_skills':
      return 'change skills';
    case 'manage_nodes':
      return 'add, change or delete nodes';
    case 'admin_structure':
      return 'manage keys or members';
  }
}

/** The principal of a signed-in user (the public members of the record only, and whether it is an administrator). */
function userPrincipal(user: { id: string; email: string; created_at: string; admin?: true }): Principal {
  return { kind: 'user', id: user.id, user: { id: user.id, email: user.email, created_at: user.created_at }, admin: user.admin === true };
}
