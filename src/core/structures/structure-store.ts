/**
 * Where structures are kept, behind one interface with one implementation per backend
 * (the filesystem home, PostgreSQL). A structure is created whole, then changes are
 * appended to its journal; the store decides when to fold the journal into a new base.
 */
import type { TimelineEntry } from '../schemas/structures.js';
import type { JournalEntry } from './changes.js';

export type { TimelineEntry };
import type { StructureRecord } from './types.js';


/** The timeline line of a journal entry. */
export function timelineEntry(entry: JournalEntry): TimelineEntry {
  const { actor, at, change } = entry;
  switch (change.op) {
    case 'node.add':
      return { type: 'created', actor, at };
    case 'node.archive':
      return { type: 'archived', actor, at };
    case 'node.restore':
      return { type: 'restored', actor, at };
    case 'node.update':
      return change.set.parent_id !== undefined && Object.keys(change.set).length === 1
        ? { type: 'moved', actor, at }
        : { type: 'updated', actor, at, fields: Object.keys(change.set) };
    default:
      return { type: 'updated', actor, at };
  }
}

/** The structure storage contract (base records and their journals), one implementation per backend; a shared contract suite runs against each. */
export interface StructureStore {
  /** Every structure, with its journal applied, and the number of its last journal entry. */
  loadAll(): Promise<{ record: StructureRecord; seq: number }[]>;
  /** One structure as stored now (another instance may have changed it); undefined when unknown. */
  load(id: string): Promise<{ record: StructureRecord; seq: number } | undefined>;
  /** Stores a new structure durably. */
  create(record: StructureRecord): Promise<void>;
  /** Appends changes to a structure's journal durably. */
  append(structureId: string, entries: JournalEntry[]): Promise<void>;
  /**
   * Called with the record once appended changes are applied in memory (under the
   * structure's lock): a store may write it as its next base.
   */
  applied(record: StructureRecord, seq: number): Promise<void>;
  /** A structure's whole journal, oldest first (for copying a home to another backend). */
  journal(structureId: string): Promise<JournalEntry[]>;
  /**
   * Stores a structure copied from another backend as one durable write: its current
   * record (which already includes its journal up to `seq`) and that journal, kept as
   * history (the nodes' timelines) and never applied again.
   */
  restore(record: StructureRecord, seq: number, journal: readonly JournalEntry[]): Promise<void>;
  /** What happened to one node, oldest first (its activity timeline). */
  timeline(structureId: string, nodeId: string): Promise<TimelineEntry[]>;
  /** Flushes and releases everything. */
  close(): Promise<void>;
  /**
   * A store shared by several instances: the current position of its change clock, which
   * grows with every create and append (any instance's).
   */
  cursor?(): Promise<number>;
  /** The structures created or changed after `cursor`, and the new position. */
  changedSince?(cursor: number): Promise<{ ids: string[]; cursor: number }>;
}

/**
 * An append refused because the structure's journal moved on (another instance changed
 * it first): reload the structure and decide again.
 */
export class StaleStructureError extends Error {
  constructor(readonly structureId: string) {
    super(`structure ${structureId} was changed by another instance`);
    this.name = 'StaleStructureError';
  }
}
