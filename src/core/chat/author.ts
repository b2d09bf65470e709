/**
 * The author of a user-side message, from the principal a request was resolved to once
 * (never from ids the request names): what the history records and the UI shows.
 */
import type { Principal } from '../auth/principal.js';
import type { MessageAuthor } from './types.js';

/** The author record of a principal: the user (by e-mail), the administrator, or the node key (by label). */
export function authorOf(principal: Principal): MessageAuthor {
  switch (principal.kind) {
    case 'user':
      return { kind: 'user', id: principal.id, label: principal.user.email };
    case 'admin':
      return { kind: 'admin', label: 'administrator' };
    case 'mcp':
      return { kind: 'node_key', id: principal.key.id, label: principal.key.label || principal.key.id };
    case 'run':
      // A run token's messages are delegations, whose author the delegation sets (the node, by label).
      return { kind: 'node', id: principal.run.roleId, label: principal.run.roleId };
  }
}
