/**
 * Where MCP node keys are kept, behind one interface with one implementation per
 * backend (the home's `.org/keys.json`, a PostgreSQL table). Only token hashes are stored.
 */

/** A key as stored. */
export interface McpKeyRecord {
  id: string;
  structure_id: string;
  node_id: string;
  role_id: string;
  label: string;
  prefix: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Storage of MCP keys. */
export interface KeyStore {
  /** The live (unrevoked) key whose token hashes to `hash`. */
  liveByHash(hash: string): Promise<McpKeyRecord | undefined>;
  /** Live keys of a node, oldest first. */
  liveOfNode(structureId: string, nodeId: string): Promise<McpKeyRecord[]>;
  /** Every key, revoked ones included, oldest first (for copying a home to another backend). */
  list(): Promise<McpKeyRecord[]>;
  /** Stores a new key durably. */
  insert(record: McpKeyRecord): Promise<void>;
  /** Marks a live key of a node revoked; returns it, or undefined when there was no such live key. */
  revoke(structureId: string, nodeId: string, keyId: string, at: string): Promise<McpKeyRecord | undefined>;
  /** Records last-use times (key id → time). */
  recordUse(used: ReadonlyMap<string, string>): Promise<void>;
}
