/**
 * Open connections per credential: per MCP key (SSE streams, MCP sessions), and per
 * user token (SSE streams, under {@link userConnectionKey}). Revoking a key, or replacing
 * a user's token, closes every connection registered under the old credential at once.
 * A connection may also carry a guard — the structure it reads and whether its caller
 * may still do what it opened the connection for — so that a change of who may do what
 * (a member removed or demoted, a node or a structure gone) closes it at once too.
 */

/** Called to end a connection; `reason` is shown to the client (e.g. "key revoked"). */
export type CloseConnection = (reason: string) => void;

/**
 * Registry key of a connection opened with a user's token: the user and the token's
 * hash, so that replacing the token closes the connections of the old one only (not one
 * opened with the new token before this instance heard of the change).
 */
export function userConnectionKey(userId: string, tokenHash: string): string {
  return `user:${userId}:${tokenHash}`;
}

/** What a connection needs to stay open: the structure it belongs to, and a check of its caller's right. */
export interface ConnectionGuard {
  structureId: string;
  /** True while the caller may still do what it opened the connection for (the role matrix, read again). */
  allowed(): boolean;
}

/** The reason an SSE stream's `error` event gives when its caller lost the right to it. */
export const ACCESS_REVOKED = 'access revoked';

/** A registry of open connections keyed by credential: an MCP key id, or {@link userConnectionKey}. */
export class ConnectionRegistry {
  private readonly open = new Map<string, Set<CloseConnection>>();
  /** Guarded connections by structure. */
  private readonly guarded = new Map<string, Map<CloseConnection, ConnectionGuard>>();

  /** Registers a connection (with its guard, if any); returns the function that unregisters it. */
  register(keyId: string, close: CloseConnection, guard?: ConnectionGuard): () => void {
    let set = this.open.get(keyId);
    if (!set) {
      set = new Set();
      this.open.set(keyId, set);
    }
    set.add(close);
    if (guard) {
      let byClose = this.guarded.get(guard.structureId);
      if (!byClose) this.guarded.set(guard.structureId, (byClose = new Map()));
      byClose.set(close, guard);
    }
    return () => {
      const current = this.open.get(keyId);
      current?.delete(close);
      if (current?.size === 0) this.open.delete(keyId);
      if (guard) this.unguard(guard.structureId, close);
    };
  }

  private unguard(structureId: string, close: CloseConnection): void {
    const byClose = this.guarded.get(structureId);
    byClose?.delete(close);
    if (byClose?.size === 0) this.guarded.delete(structureId);
  }

  /**
   * Checks the guarded connections of a structure again (it changed: members, nodes, the
   * structure itself) and ends, with `reason`, each whose caller lost its right; returns how many.
   */
  recheck(structureId: string, reason = ACCESS_REVOKED): number {
    const byClose = this.guarded.get(structureId);
    if (!byClose) return 0;
    let closed = 0;
    for (const [close, guard] of [...byClose]) {
      let allowed: boolean;
      try {
        allowed = guard.allowed();
      } catch {
        allowed = false;
      }
      if (allowed) continue;
      this.unguard(structureId, close);
      for (const [keyId, set] of this.open) {
        if (!set.delete(close)) continue;
        if (set.size === 0) this.open.delete(keyId);
        break;
      }
      closed++;
      try {
        close(reason);
      } catch {
        // A connection that fails to close is already gone.
      }
    }
    return closed;
  }

  /** Number of open connections of a key. */
  count(keyId: string): number {
    return this.open.get(keyId)?.size ?? 0;
  }

  /** Users with open connections (registered under {@link userConnectionKey}). */
  users(): string[] {
    const ids = new Set<string>();
    for (const key of this.open.keys()) if (key.startsWith('user:')) ids.add(key.slice(5, key.indexOf(':', 5)));
    return [...ids];
  }

  /**
   * Ends the connections of `userId` opened with a token other than the one hashing to
   * `currentHash` (undefined: the user is gone, every connection ends); returns how many.
   */
  closeUserExcept(userId: string, currentHash: string | undefined, reason: string): number {
    const prefix = `user:${userId}:`;
    const keep = currentHash === undefined ? undefined : userConnectionKey(userId, currentHash);
    let closed = 0;
    for (const key of [...this.open.keys()]) if (key.startsWith(prefix) && key !== keep) closed += this.closeAll(key, reason);
    return closed;
  }

  /** Ends every connection of a key with `reason`; returns how many were ended. */
  closeAll(keyId: string, reason: string): number {
    const set = this.open.get(keyId);
    if (!set) return 0;
    this.open.delete(keyId);
    for (const byClose of this.guarded.values()) for (const close of set) byClose.delete(close);
    for (const close of set) {
      try {
        close(reason);
      } catch {
        // A connection that fails to close is already gone; the others must still close.
      }
    }
    return set.size;
  }
}
