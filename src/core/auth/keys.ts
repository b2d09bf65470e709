/**
 * Per-node MCP keys (API.md §3, §5): minted with a label, shown once, stored as a
 * SHA-256 hash in a `KeyStore` (the home's `.org/keys.json` by default), listed without
 * tokens, revoked at once. Live keys are cached by hash; on a store shared by several
 * instances, `revoked` applies a revocation made on another instance (the key stops
 * authenticating and its connections here close) and a miss reads the store.
 */
import { notFound } from '../errors.js';
import type { McpKeyCreated, McpKeyListing } from '../schemas/auth.js';
import { errorFields, isoNow, silentLog, uuid, type Clock, type IdGenerator, type Log, systemClock } from '../util/index.js';
import type { ConnectionRegistry } from './connections.js';
import { createFsKeyStore } from './fs-key-store.js';
import type { KeyStore, McpKeyRecord } from './key-store.js';
import { TOKEN_PREFIX, hashToken, mintToken } from './tokens.js';

/** Characters after `org_mcp_` shown as a key's `hint` (too few to guess the rest). */
export const KEY_HINT_LENGTH = 4;

/**
 * The public `prefix` and `hint` of a stored key. The record's `prefix` holds the token's
 * start, `org_mcp_` and the hint (every key ever minted was stored so, which is how keys
 * minted before `hint` existed list theirs); a record holding less lists an empty hint.
 */
export function keyHintOf(record: Pick<McpKeyRecord, 'prefix'>): { prefix: typeof TOKEN_PREFIX.mcp; hint: string } {
  const stored = record.prefix.startsWith(TOKEN_PREFIX.mcp) ? record.prefix.slice(TOKEN_PREFIX.mcp.length, TOKEN_PREFIX.mcp.length + KEY_HINT_LENGTH) : '';
  return { prefix: TOKEN_PREFIX.mcp, hint: /^[0-9A-Za-z]*$/.test(stored) ? stored : '' };
}

export type { McpKeyRecord } from './key-store.js';

export type { McpKeyCreated, McpKeyListing } from '../schemas/auth.js';

/** Options of the key service: a store, or the file of the filesystem store. */
export type KeyServiceOptions = ({ store: KeyStore; file?: undefined } | { file: string; store?: undefined }) & {
  connections: ConnectionRegistry;
  clock?: Clock;
  ids?: IdGenerator;
  /** How often last-use times are written to the store, in ms (default 5000). */
  flushEveryMs?: number;
  /** Where a failed periodic flush is reported (default: silent); the next flush retries. */
  log?: Log;
};

/** Mints, lists, resolves and revokes MCP node keys. */
export class KeyService {
  private store: KeyStore | undefined;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  /** Live keys by token hash, as last read. */
  private readonly byHash = new Map<string, McpKeyRecord>();
  private readonly lastUsed = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: KeyServiceOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Opens the store and starts the periodic flush of last-use times. */
  async load(): Promise<void> {
    if (!this.store && this.options.file !== undefined) this.store = await createFsKeyStore(this.options.file);
    // A flush that fails (disk full, read-only, database away) is reported and retried at the next tick;
    // it must never become an unhandled rejection, which would end the process.
    const log = this.options.log ?? silentLog;
    this.timer = setInterval(() => {
      this.flushUsage().catch((error: unknown) => log('error', 'saving MCP key last-use times failed', errorFields(error)));
    }, this.options.flushEveryMs ?? 5000);
    this.timer.unref();
  }

  private get keys(): KeyStore {
    if (!this.store) throw new Error('KeyService.load() was not called');
    return this.store;
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
      // The service prefix and the hint after it (see keyHintOf), so keys can be told apart in listings.
      prefix: token.slice(0, TOKEN_PREFIX.mcp.length + KEY_HINT_LENGTH),
      token_hash: hashToken(token),
      created_at: isoNow(this.clock),
      last_used_at: null,
      revoked_at: null,
    };
    await this.keys.insert(record);
    this.byHash.set(record.token_hash, record);
    return { id: record.id, token, ...keyHintOf(record), label: record.label, created_at: record.created_at };
  }

  /** Live keys of a node, oldest first, without tokens. */
  async list(structureId: string, nodeId: string): Promise<McpKeyListing[]> {
    return (await this.keys.liveOfNode(structureId, nodeId)).map((key) => ({
      id: key.id,
      ...keyHintOf(key),
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
    // Stop accepting the key here before the write, so no request slips in while it lands.
    const held = [...this.byHash].find(([, key]) => key.id === keyId && key.structure_id === structureId && key.node_id === nodeId);
    if (held) this.byHash.delete(held[0]);
    let key: McpKeyRecord | undefined;
    try {
      key = await this.keys.revoke(structureId, nodeId, keyId, isoNow(this.clock));
    } catch (error) {
      if (held) this.byHash.set(...held);
      throw error;
    }
    if (!key) throw notFound(`MCP key ${keyId} not found`);
    this.revoked(keyId);
  }

  /**
   * Forgets a revoked key (revoked here, or on another instance sharing the store) and
   * ends its open connections on this instance.
   */
  revoked(keyId: string): void {
    for (const [hash, key] of this.byHash) if (key.id === keyId) this.byHash.delete(hash);
    this.options.connections.closeAll(keyId, 'key revoked');
  }

  /** Drops every cached key (revocations on other instances may have been missed). */
  forgetAll(): void {
    this.byHash.clear();
  }

  /** Revokes every key of a node (used when the node is deleted). */
  async revokeNode(structureId: string, nodeId: string): Promise<void> {
    for (const key of await this.list(structureId, nodeId)) await this.revoke(structureId, nodeId, key.id).catch(() => undefined);
  }

  /** The live key whose token hashes to `hash`; records its use. */
  async authenticate(hash: string): Promise<McpKeyRecord | undefined> {
    let key = this.byHash.get(hash);
    if (!key) {
      key = await this.keys.liveByHash(hash);
      if (key) this.byHash.set(hash, key);
    }
    if (key) this.lastUsed.set(key.id, isoNow(this.clock));
    return key;
  }

  /** Writes pending last-use times to the store. */
  async flushUsage(): Promise<void> {
    if (this.lastUsed.size === 0 || !this.store) return;
    const pending = new Map(this.lastUsed);
    await this.store.recordUse(pending);
    for (const [id, used] of pending) if (this.lastUsed.get(id) === used) this.lastUsed.delete(id);
  }

  /** Stops the flush timer and flushes. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushUsage();
  }
}
