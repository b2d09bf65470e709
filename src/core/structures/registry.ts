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
import { applyChange, changedNodeId, nodeIndex, type JournalEntry, type NodeIndex, type StructureChange } from './changes.js';
import { StaleStructureError, type StructureStore } from './structure-store.js';
import { applyOnTrial, type Undo } from './trial.js';
import type { NodeRecord, StructureRecord } from './types.js';

interface Entry {
  record: StructureRecord;
  version: number;
  seq: number;
  /** Live nodes by role_id. */
  byRole: Map<string, NodeRecord>;
  /** Live nodes by id (kept in step by `applyChange`). */
  byId: NodeIndex;
}

/** A change waiting to be committed with its group. */
interface Request {
  actor: Actor;
  decide: (record: StructureRecord) => { changes: StructureChange[]; result: unknown };
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/** What a request's `decide` returned, or threw. */
type Outcome = { ok: true; changes: StructureChange[]; result: unknown } | { ok: false; error: unknown };

function settle(request: Request, outcome: Outcome): void {
  if (outcome.ok) request.resolve(outcome.result);
  else request.reject(outcome.error);
}

/** How many times a change refused as stale is decided again before giving up. */
const MAX_STALE_RETRIES = 1000;

/** Who made a change, for the journal and the node timelines. */
export type Actor = string;

/** In-memory structures over a store. */
export class StructureRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly locks = new KeyedMutex();
  /** Changes waiting for the next group commit, by structure. */
  private readonly waiting = new Map<string, Request[]>();
  /** Position of a shared store's change clock this registry has caught up with. */
  private cursor = 0;
  private syncing: Promise<void> | undefined;
  /** Told the id of every structure whose record changed (here, or brought in from another instance). */
  private readonly listeners = new Set<(id: string) => void>();

  constructor(
    private readonly store: StructureStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Calls `listener` with a structure's id after each change of its record is applied in
   * memory (before the change's caller is answered), and after a change another instance
   * made is brought in; returns the remover. Who may do what may have changed with it:
   * open streams are checked again (see ConnectionRegistry.recheck).
   */
  onChanged(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(id: string): void {
    for (const listener of this.listeners) {
      try {
        listener(id);
      } catch {
        // A listener's failure is its own: the change is applied and the others are told.
      }
    }
  }

  /** Loads every structure from the store. */
  async load(): Promise<void> {
    // The clock first: a change made while loading is then seen again by the next sync.
    if (this.store.cursor) this.cursor = await this.store.cursor();
    for (const { record, seq } of await this.store.loadAll()) this.entries.set(record.id, entryOf(record, seq));
  }

  /**
   * Brings in the structures other instances created or changed. Concurrent callers share
   * one pass. Undefined on a store of one instance: there is nothing to wait for (the
   * server calls this before every request, so the no-op costs no promise).
   */
  sync(): Promise<void> | undefined {
    const { changedSince } = this.store;
    if (!changedSince) return undefined;
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
    this.changed(id);
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

  /** The live node with this id, if any. */
  nodeById(structureId: string, nodeId: string): NodeRecord | undefined {
    return this.entries.get(structureId)?.byId.get(nodeId);
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
   * Changes that arrive while another group of this structure is being journaled are
   * committed together, in arrival order, with one append (group commit): each is
   * decided against the record with the earlier ones applied, and each promise settles
   * once its changes are durable and applied.
   */
  change<R>(id: string, actor: Actor, decide: (record: StructureRecord) => { changes: StructureChange[]; result: R }): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const request: Request = { actor, decide, resolve: resolve as (result: unknown) => void, reject };
      const queue = this.waiting.get(id);
      if (queue) {
        queue.push(request);
        return;
      }
      this.waiting.set(id, [request]);
      this.locks.run(id, () => this.commitWaiting(id)).catch(() => undefined);
    });
  }

  /** Commits the waiting changes of a structure, group by group, until none are left (under the structure's lock). */
  private async commitWaiting(id: string): Promise<void> {
    for (;;) {
      const group = this.waiting.get(id) ?? [];
      if (group.length === 0) {
        this.waiting.delete(id);
        return;
      }
      this.waiting.set(id, []);
      try {
        await this.commitGroup(id, group);
      } catch (error) {
        // Not expected (the store's errors are settled per request), but never leave a request pending.
        for (const request of group) request.reject(error);
      }
    }
  }

  /** Decides, journals (one append) and applies one group of changes; settles each request. */
  private async commitGroup(id: string, group: Request[]): Promise<void> {
    let entry = this.entries.get(id);
    if (!entry) {
      for (const request of group) request.reject(notFound(`structure ${id} not found`));
      return;
    }
    for (let attempt = 1; ; attempt++) {
      const { outcomes, journal } = this.decideGroup(entry, group);
      if (journal.length > 0) {
        try {
          await this.store.append(id, journal);
        } catch (error) {
          // Another instance changed the structure first: decide again on its version. Each
          // refusal means another change was committed (progress), so a writer among many
          // concurrent ones may lose many times in a row; the bound only stops a broken store.
          if (error instanceof StaleStructureError && attempt < MAX_STALE_RETRIES) {
            entry = (await this.reload(id)) ?? entry;
            continue;
          }
          for (const [index, outcome] of outcomes.entries()) {
            if (outcome.ok && outcome.changes.length > 0) group[index]!.reject(error);
            else settle(group[index]!, outcome);
          }
          return;
        }
      }
      let failure: { error: unknown } | undefined;
      if (journal.length > 0) {
        entry.seq = journal.at(-1)!.seq;
        for (const { change } of journal) {
          applyChange(entry.record, change, entry.byId);
          indexChange(entry, change);
        }
        entry.version++;
        this.changed(id);
        try {
          await this.store.applied(entry.record, entry.seq);
        } catch (error) {
          failure = { error };
        }
      }
      for (const [index, outcome] of outcomes.entries()) {
        if (failure && outcome.ok && outcome.changes.length > 0) group[index]!.reject(failure.error);
        else settle(group[index]!, outcome);
      }
      return;
    }
  }

  /**
   * Decides each request of a group against the record with the group's earlier changes
   * applied on trial, then undoes them all (in the same synchronous step, so no reader
   * sees a change before it is durable). Returns each request's outcome and the journal.
   */
  private decideGroup(entry: Entry, group: Request[]): { outcomes: Outcome[]; journal: JournalEntry[] } {
    const outcomes: Outcome[] = [];
    const journal: JournalEntry[] = [];
    const undos: Undo[] = [];
    let seq = entry.seq;
    try {
      for (const [index, request] of group.entries()) {
        let decided: { changes: StructureChange[]; result: unknown };
        try {
          decided = request.decide(entry.record);
        } catch (error) {
          outcomes.push({ ok: false, error });
          continue;
        }
        outcomes.push({ ok: true, changes: decided.changes, result: decided.result });
        if (decided.changes.length === 0) continue;
        const at = isoNow(this.clock);
        // The last request's changes need no trial: nothing after it is decided on them.
        const onTrial = index < group.length - 1;
        for (const change of decided.changes) {
          const nodeId = changedNodeId(entry.record, change);
          journal.push({ seq: ++seq, at, actor: request.actor, ...(nodeId ? { node_id: nodeId } : {}), change });
          if (onTrial) {
            // The record first, then its index (a restore finds the node in the record); undone in reverse.
            undos.push(applyOnTrial(entry.record, entry.byId, change));
            undos.push(indexOnTrial(entry, change));
          }
        }
      }
    } finally {
      for (const undo of undos.reverse()) undo();
    }
    return { outcomes, journal };
  }

  /** Waits for changes in flight. */
  idle(): Promise<void> {
    return this.locks.idle();
  }
}

function entryOf(record: StructureRecord, seq: number): Entry {
  return { record, version: 1, seq, byRole: byRole(record), byId: nodeIndex(record) };
}

function byRole(record: StructureRecord): Map<string, NodeRecord> {
  return new Map(record.agents.map((node) => [node.role_id, node]));
}

/**
 * Updates the role index for a change just applied on trial, and returns what puts the
 * role's previous entry back.
 */
function indexOnTrial(entry: Entry, change: StructureChange): Undo {
  let roleId: string | undefined;
  if (change.op === 'node.add') roleId = change.node.role_id;
  else if (change.op === 'node.restore') roleId = change.role_id;
  else if (change.op === 'node.archive') {
    for (const [role, node] of entry.byRole) if (node.id === change.id) roleId = role;
  }
  if (roleId === undefined) return () => undefined;
  const role = roleId;
  const before = entry.byRole.get(role);
  indexChange(entry, change);
  return () => {
    if (before) entry.byRole.set(role, before);
    else entry.byRole.delete(role);
  };
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
