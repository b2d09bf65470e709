/**
 * Per-node MCP keys (API.md §3, §5): minted with a label, shown once, stored as a
 * SHA-256 hash in `.org/keys.json`, listed without tokens, revoked at once.
 */
import { notFound } from '../errors.js';
import type { McpKeyCreated, McpKeyListing } from '../schemas/auth.js';
import { JsonFile } from '../storage/index.js';
import { errorFields, isoNow, silentLog, uuid, type Clock, type IdGenerator, type Log, systemClock } from '../util/index.js';
import type { ConnectionRegistry } from './connections.js';
import { TOKEN_PREFIX, hashToken, mintToken } from './tokens.js';

/** Characters after `org_mcp_` shown in a key's `prefix` (too few to guess the rest). */
export const KEY_HINT_LENGTH = 4;

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

export type { McpKeyCreated, McpKeyListing } from '../schemas/auth.js';

interface KeysDoc {
  version: 1;
  keys: McpKeyRecord[];
}

/** Options of the key service. */
export interface KeyServiceOptions {
  file: string;
  connections: ConnectionRegistry;
  clock?: Clock;
  ids?: IdGenerator;
  /** How often last-use times are flushed to disk, in ms (default 5000). */
  flushEveryMs?: number;
  /** Where a failed periodic flush is reported (default: silent); the next flush retries. */
  log?: Log;
}

/** Mints, lists, resolves and revokes MCP node keys. */
export class KeyService {
  private readonly doc: JsonFile<KeysDoc>;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private byHash = new Map<string, McpKeyRecord>();
  private readonly lastUsed = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: KeyServiceOptions) {
    this.doc = new JsonFile<KeysDoc>(options.file, () => ({ version: 1, keys: [] }));
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Loads keys and starts the periodic flush of last-use times. */
  async load(): Promise<void> {
    await this.doc.load();
    this.reindex();
    // A flush that fails (disk full, read-only) is reported and retried at the next tick;
    // it must never become an unhandled rejection, which would end the process.
    const log = this.options.log ?? silentLog;
    this.timer = setInterval(() => {
      this.flushUsage().catch((error: unknown) => log('error', 'saving MCP key last-use times failed', errorFields(error)));
    }, this.options.flushEveryMs ?? 5000);
    this.timer.unref();
  }

  private reindex(): void {
    this.byHash = new Map(this.doc.current.keys.filter((key) => !key.revoked_at).map((key) => [key.token_hash, key]));
  }

  /** Mints a key for a node; the token is in the result only. */
  async mint(input: { structureId: string; nodeId: string; roleId: string; label?: string }): Promise<McpKeyCreated> {
    const token = mintToken('mcp');
    const record: McpKeyRecord = {
      id: this.ids(),
      structure_id: input.structureId,
      node_id: input.nodeId,
      role_id: input.roleId,
      label: input.label ?? '',
      // The service prefix and the first characters after it, so keys can be told apart in listings.
      prefix: token.slice(0, TOKEN_PREFIX.mcp.length + KEY_HINT_LENGTH),
      token_hash: hashToken(token),
      created_at: isoNow(this.clock),
      last_used_at: null,
      revoked_at: null,
    };
    await this.doc.update((draft) => {
      draft.keys.push(record);
    });
    this.reindex();
    return { id: record.id, token, prefix: record.prefix, label: record.label, created_at: record.created_at };
  }

  /** Live keys of a node, oldest first, without tokens. */
  list(structureId: string, nodeId: string): McpKeyListing[] {
    return this.doc.current.keys
      .filter((key) => key.structure_id === structureId && key.node_id === nodeId && !key.revoked_at)
      .map((key) => ({
        id: key.id,
        prefix: key.prefix,
        label: key.label,
        created_at: key.created_at,
        last_used_at: this.lastUsed.get(key.id) ?? key.last_used_at,
      }));
  }

  /**
   * Revokes a key of a node: from the moment this resolves every request with it is
   * 401 and every connection registered for it has been closed. 404 when unknown.
   */
  async revoke(structureId: string, nodeId: string, keyId: string): Promise<void> {
    const key = this.doc.current.keys.find(
      (candidate) => candidate.id === keyId && candidate.structure_id === structureId && candidate.node_id === nodeId && !candidate.revoked_at,
    );
    if (!key) throw notFound(`MCP key ${keyId} not found`);
    // Stop accepting the key before the write, so no request slips in while it lands.
    this.byHash.delete(key.token_hash);
    try {
      await this.doc.update((draft) => {
        const stored = draft.keys.find((candidate) => candidate.id === keyId);
        if (stored) stored.revoked_at = isoNow(this.clock);
      });
    } finally {
      this.reindex();
    }
    this.options.connections.closeAll(keyId, 'key revoked');
  }

  /** Revokes every key of a node (used when the node is deleted). */
  async revokeNode(structureId: string, nodeId: string): Promise<void> {
    for (const key of this.list(structureId, nodeId)) await this.revoke(structureId, nodeId, key.id);
  }

  /** The live key whose token hashes to `hash`; records its use. */
  authenticate(hash: string): McpKeyRecord | undefined {
    const key = this.byHash.get(hash);
    if (key) this.lastUsed.set(key.id, isoNow(this.clock));
    return key;
  }

  /** Writes pending last-use times to disk. */
  async flushUsage(): Promise<void> {
    if (this.lastUsed.size === 0) return;
    const pending = new Map(this.lastUsed);
    await this.doc.update((draft) => {
      for (const key of draft.keys) {
        const used = pending.get(key.id);
        if (used) key.last_used_at = used;
      }
    });
    for (const [id, used] of pending) if (this.lastUsed.get(id) === used) this.lastUsed.delete(id);
    this.reindex();
  }

  /** Stops the flush timer and flushes. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushUsage();
  }
}
