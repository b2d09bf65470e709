/** Calls about the instance and its users: health, who the token is, user tokens. */
import { callOn, type ClientBase } from '../base.js';
import type { RequestOptions } from '../http.js';
import type { CreatedUser, Health, Identity, WhoAmI } from '../types.js';
import type { StructureCalls } from './structures.js';

/** `GET /api/org/whoami`. */
function identify(client: ClientBase, request?: RequestOptions): Promise<Identity> {
  return callOn(client, '/api/org/whoami', {}, request);
}

export const instanceCalls = {
  /** `GET /api/org/health` (no token needed). */
  health(request?: RequestOptions): Promise<Health> {
    return callOn(this, '/api/org/health', { auth: false }, request);
  },

  /** `GET /api/org/whoami`: the administrator, a user, or an MCP node key with its structure and node. */
  identify(request?: RequestOptions): Promise<Identity> {
    return identify(this, request);
  },

  /**
   * Who the token belongs to and the structures it opens: `identify()` plus the
   * structure list (which a node key may not read: then it has none).
   */
  async whoami(this: ClientBase & StructureCalls, request?: RequestOptions): Promise<WhoAmI> {
    const me = await identify(this, request);
    if (me.kind === 'mcp') return { kind: me.kind, admin: false, structures: [] };
    const { structures } = await this.listStructures(request);
    return { kind: me.kind, admin: me.admin === true, ...(me.user ? { email: me.user.email } : {}), structures };
  },

  /** `POST /api/org/users` (administrator only): the new user's token is shown once. */
  createUser(email: string, request?: RequestOptions): Promise<CreatedUser> {
    return callOn(this, '/api/org/users', { method: 'POST', body: { email } }, request);
  },

  /** `POST /api/org/users/me/token`: a new token for the caller (shown once); the one this client uses stops working. */
  rotateToken(request?: RequestOptions): Promise<CreatedUser> {
    return callOn(this, '/api/org/users/me/token', { method: 'POST' }, request);
  },

  /** `POST /api/org/users/{id}/token` (administrator only): a new token for the user (shown once); their old one stops working. */
  resetUserToken(userId: string, request?: RequestOptions): Promise<CreatedUser> {
    return callOn(this, `/api/org/users/${encodeURIComponent(userId)}/token`, { method: 'POST' }, request);
  },
} satisfies ThisType<ClientBase>;

/** The instance calls of `OrgClient`. */
export type InstanceCalls = typeof instanceCalls;
