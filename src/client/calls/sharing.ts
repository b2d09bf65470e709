/** Calls about who may reach a structure: MCP keys of nodes, members, invites. */
import { callOn, enc, nodePath, structurePath, type ClientBase } from '../base.js';
import type { RequestOptions } from '../http.js';
import type { Acceptance, CreatedKey, Invite, KeyListing, Member, Members, Role } from '../types.js';

export const sharingCalls = {
  /** Mints an MCP key for a node: the token is in this answer only. */
  createKey(structureId: string, roleId: string, label?: string, request?: RequestOptions): Promise<CreatedKey> {
    return callOn(this, `${nodePath(structureId, roleId)}/mcp-key`, { method: 'POST', body: label ? { label } : {} }, request);
  },

  /** MCP keys of a node (never their tokens). */
  listKeys(structureId: string, roleId: string, request?: RequestOptions): Promise<{ keys: KeyListing[] }> {
    return callOn(this, `${nodePath(structureId, roleId)}/mcp-keys`, {}, request);
  },

  /** Revokes an MCP key at once. */
  revokeKey(structureId: string, roleId: string, keyId: string, request?: RequestOptions): Promise<void> {
    return callOn(this, `${nodePath(structureId, roleId)}/mcp-key/${enc(keyId)}`, { method: 'DELETE' }, request);
  },

  /** Invites an e-mail address to a structure with a role. */
  share(structureId: string, email: string, role: Role, request?: RequestOptions): Promise<{ invite: Invite }> {
    return callOn(this, `${structurePath(structureId)}/share`, { method: 'POST', body: { email, role } }, request);
  },

  /** Members and open invites of a structure. */
  members(structureId: string, request?: RequestOptions): Promise<Members> {
    return callOn(this, `${structurePath(structureId)}/members`, {}, request);
  },

  /** Changes a member's role (the last owner cannot be demoted). */
  setMemberRole(structureId: string, userId: string, role: Role, request?: RequestOptions): Promise<Member> {
    return callOn(this, `${structurePath(structureId)}/members/${enc(userId)}`, { method: 'PATCH', body: { role } }, request);
  },

  /** Removes a member from a structure (the last owner cannot be removed). */
  removeMember(structureId: string, userId: string, request?: RequestOptions): Promise<void> {
    return callOn(this, `${structurePath(structureId)}/members/${enc(userId)}`, { method: 'DELETE' }, request);
  },

  /** Revokes a pending invite: its token stops working. */
  revokeInvite(structureId: string, inviteId: string, request?: RequestOptions): Promise<void> {
    return callOn(this, `${structurePath(structureId)}/invites/${enc(inviteId)}`, { method: 'DELETE' }, request);
  },

  /** Accepts an invite with its one-time token (no bearer). */
  acceptInvite(token: string, request?: RequestOptions): Promise<Acceptance> {
    return callOn(this, '/api/org/invites/accept', { method: 'POST', body: { token }, auth: false }, request);
  },
} satisfies ThisType<ClientBase>;

/** The key, member and invite calls of `OrgClient`. */
export type SharingCalls = typeof sharingCalls;
