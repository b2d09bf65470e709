/**
 * Open connections per MCP key (SSE streams, MCP sessions). Revoking a key closes
 * every connection registered under it, at once.
 */

/** Called to end a connection; `reason` is shown to the client (e.g. "key revoked"). */
export type CloseConnection = (reason: string) => void;

/** A registry of open connections keyed by MCP key id. */
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
