/**
 * The structures of an instance, in memory, written through a `StructureStore`. Changes
 * to one structure are serialized: a change is decided against the current record,
 * journaled durably, and only then applied in memory (so readers never see a change
 * that is not on disk). Each structure carries a version that grows with every change,
 * which lets readers cache what they derive from it.
 *
 * On a store shared by several instances, `sync` brings in what other instances changed
 * (the server calls it before each request), and a change decided against a record
 * another instance changed meanwhile is refused by the store, reloaded and decided again.
 */
import { notFound } from '../errors.js';
import { KeyedMutex } from '../storage/index.js';
import { isoNow, type Clock } from '../util/index.js';
import { applyChange, changedNodeId, type JournalEntry, type StructureChange } from './changes.js';
import { StaleStructureError, type StructureStore } from './structure-store.js';
import type { NodeRecord, StructureRecord } from './types.js';

interface Entry {
  record: StructureRecord;
  version: number;
  seq: number;
  /** Live nodes by role_id. */
  byRole: Map<string, NodeRecord>;
}

/** How many times a change refused as stale is decided again before giving up. */
const MAX_STALE_RETRIES = 1000;

/** Who made a change, for the journal and the node timelines. */
export type Actor = string;

/** In-memory structures over a store. */
export class StructureRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly locks = new KeyedMutex();
  /** Position of a shared store's change clock this registry has caught up with. */
  private cursor = 0;
  private syncing: Promise<void> | undefined;

  constructor(
    private readonly store: StructureStore,
    private readonly clock: Clock,
  ) {}

  /** Loads every structure from the store. */
  async load(): Promise<void> {
    // The clock first: a change made while loading is then seen again by the next sync.
    if (this.store.cursor) this.cursor = await this.store.cursor();
    for (const { record, seq } of await this.store.loadAll()) this.entries.set(record.id, entryOf(record, seq));
  }

  /**
   * Brings in the structures other instances created or changed (a no-op on a store of
   * one instance). Concurrent callers share one pass.
   */
  sync(): Promise<void> {
    const { changedSince } = this.store;
    if (!changedSince) return Promise.resolve();
    this.syncing ??= (async () => {
      try {
        const { ids, cursor } = await changedSince.call(this.store, this.cursor);
        await Promise.all(ids.map((id) => this.locks.run(id, () => this.reload(id))));
        this.cursor = Math.max(this.cursor, cursor);
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  /** Replaces the in-memory record with the stored one when that one is newer (under the structure's lock). */
  private async reload(id: string): Promise<Entry | undefined> {
    const loaded = await this.store.load(id);
    const entry = this.entries.get(id);
    if (!loaded) return entry;
    if (entry && loaded.seq <= entry.seq) return entry;
    const next = entryOf(loaded.record, loaded.seq);
    next.version = (entry?.version ?? 0) + 1;
    this.entries.set(id, next);
    return next;
  }

  /** The record of a structure; 404 when unknown. */
  get(id: string): StructureRecord {
    const entry = this.entries.get(id);
    if (!entry) throw notFound(`structure ${id} not found`);
    return entry.record;
  }

  /** True when a structure with this id exists. */
  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** A number that changes whenever the structure changes (0 for an unknown one). */
  version(id: string): number {
    return this.entries.get(id)?.version ?? 0;
  }

  /** The live node with `roleId`, if any. */
  nodeByRole(structureId: string, roleId: string): NodeRecord | undefined {
    return this.entries.get(structureId)?.byRole.get(roleId);
  }

  /** Every loaded structure, read lazily from the live map. */
  all(): IterableIterator<StructureRecord> {
    const entries = this.entries.values();
    return (function* () {
      for (const entry of entries) yield entry.record;
    })();
  }

  /** Stores a new structure. */
  async create(record: StructureRecord): Promise<void> {
    await this.store.create(record);
    this.entries.set(record.id, entryOf(record, 0));
  }

  /**
   * Makes changes to a structure: `decide` sees the current record and returns the
   * changes (throwing to refuse) and a result; they are journaled, then applied.
   */
  change<R>(id: string, actor: Actor, decide: (record: StructureRecord) => { changes: StructureChange[]; result: R }): Promise<R> {
    return this.locks.run(id, async () => {
      let entry = this.entries.get(id);
      if (!entry) throw notFound(`structure ${id} not found`);
      for (let attempt = 1; ; attempt++) {
        const { changes, result } = decide(entry.record);
        if (changes.length === 0) return result;
        const at = isoNow(this.clock);
        const journal: JournalEntry[] = changes.map((change, index) => {
          const nodeId = changedNodeId(entry!.record, change);
          return { seq: entry!.seq + index + 1, at, actor, ...(nodeId ? { node_id: nodeId } : {}), change };
        });
        try {
          await this.store.append(id, journal);
        } catch (error) {
          // Another instance changed the structure first: decide again on its version. Each
          // refusal means another change was committed (progress), so a writer among many
          // concurrent ones may lose many times in a row; the bound only stops a broken store.
          if (!(error instanceof StaleStructureError) || attempt >= MAX_STALE_RETRIES) throw error;
          entry = (await this.reload(id)) ?? entry;
          continue;
        }
        return this.applyJournaled(entry, changes, result);
      }
    });
  }

  /** Applies journaled changes in memory, where readers see them, and tells the store. */
  private async applyJournaled<R>(entry: Entry, changes: StructureChange[], result: R): Promise<R> {
    entry.seq += changes.length;
    for (const change of changes) {
      applyChange(entry.record, change);
      indexChange(entry, change);
    }
    entry.version++;
    await this.store.applied(entry.record, entry.seq);
    return result;
  }

  /** Waits for changes in flight. */
  idle(): Promise<void> {
    return this.locks.idle();
  }
}

function entryOf(record: StructureRecord, seq: number): Entry {
  return { record, version: 1, seq, byRole: byRole(record) };
}

function byRole(record: StructureRecord): Map<string, NodeRecord> {
  return new Map(record.agents.map((node) => [node.role_id, node]));
}

/** Keeps the role index of an entry in step with an applied change (no rebuild). */
function indexChange(entry: Entry, change: StructureChange): void {
  switch (change.op) {
    case 'node.add':
      entry.byRole.set(change.node.role_id, change.node);
      return;
    case 'node.archive':
      for (const [roleId, node] of entry.byRole) {
        if (node.id === change.id) {
          entry.byRole.delete(roleId);
          break;
        }
      }
      return;
    case 'node.restore': {
      const node = entry.record.agents.findLast((candidate) => candidate.role_id === change.role_id);
      if (node) entry.byRole.set(node.role_id, node);
      return;
    }
    default:
      return;
  }
}
