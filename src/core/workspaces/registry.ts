/**
 * The structures of an instance, in memory, written through a `StructureStore`. Changes
 * to one structure are serialized: a change is decided against the current record,
 * journaled durably, and only then applied in memory (so readers never see a change
 * that is not on disk). Each structure carries a version that grows with every change,
 * which lets readers cache what they derive from it.
 */
import { notFound } from '../errors.js';
import { KeyedMutex } from '../storage/index.js';
import { isoNow, type Clock } from '../util/index.js';
import { applyChange, changedNodeId, type JournalEntry, type StructureChange } from './changes.js';
import type { StructureStore } from './structure-store.js';
import type { NodeRecord, StructureRecord } from './types.js';

interface Entry {
  record: StructureRecord;
  version: number;
  seq: number;
  /** Live nodes by role_id. */
  byRole: Map<string, NodeRecord>;
}

/** Who made a change, for the journal and the node timelines. */
export type Actor = string;

/** In-memory structures over a store. */
export class StructureRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly locks = new KeyedMutex();

  constructor(
    private readonly store: StructureStore,
    private readonly clock: Clock,
  ) {}

  /** Loads every structure from the store. */
  async load(): Promise<void> {
    for (const { record, seq } of await this.store.loadAll()) this.entries.set(record.id, entryOf(record, seq));
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

  /** Every structure. */
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
      const entry = this.entries.get(id);
      if (!entry) throw notFound(`structure ${id} not found`);
      const { changes, result } = decide(entry.record);
      if (changes.length === 0) return result;
      const at = isoNow(this.clock);
      const journal: JournalEntry[] = changes.map((change, index) => {
        const nodeId = changedNodeId(entry.record, change);
        return { seq: entry.seq + index + 1, at, actor, ...(nodeId ? { node_id: nodeId } : {}), change };
      });
      await this.store.append(id, journal);
      // Durable: now the change is applied in memory, where readers see it.
      entry.seq += journal.length;
      for (const change of changes) {
        applyChange(entry.record, change);
        indexChange(entry, change);
      }
      entry.version++;
      await this.store.applied(entry.record, entry.seq);
      return result;
    });
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
