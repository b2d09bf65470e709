/**
 * Open connections per credential: per MCP key (SSE streams, MCP sessions), and per
 * user token (SSE streams, under {@link userConnectionKey}). Revoking a key, or replacing
 * a user's token, closes every connection registered under the old credential at once.
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

/** A registry of open connections keyed by credential: an MCP key id, or {@link userConnectionKey}. */
export class ConnectionRegistry {
  private readonly open = new Map<string, Set<CloseConnection>>();

  /** Registers a connection; returns the function that unregisters it. */
  register(keyId: string, close: CloseConnection): () => void {
    let set = this.open.get(keyId);
    if (!set) {
      set = new Set();
      this.open.set(keyId, set);
    }
    set.add(close);
    return () => {
      const current = this.open.get(keyId);
      current?.delete(close);
      if (current?.size === 0) this.open.delete(keyId);
    };
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
