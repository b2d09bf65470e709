/**
 * The workspace log of each structure: decisions and milestones agents committed, read
 * newest first. Kept in a `WorkspaceLogStore`: by default the filesystem one, appending
 * to `.org/structures/<id>/log.jsonl`.
 */
import { join } from 'node:path';
import { appendJsonl, readJsonl } from '../storage/index.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { StructureRegistry } from './registry.js';
import type { LogEntry } from './types.js';

/** Storage of workspace logs, one implementation per backend. */
export interface WorkspaceLogStore {
  /** Appends entries to a structure's log durably, in order. */
  append(structureId: string, entries: LogEntry[]): Promise<void>;
  /** The newest `limit` entries of a structure's log, newest first. */
  read(structureId: string, limit: number): Promise<LogEntry[]>;
}

/** The filesystem store: one JSON-lines file per structure under `dir` (`.org/structures`). */
export function createFsWorkspaceLogStore(dir: string): WorkspaceLogStore {
  const file = (structureId: string) => join(dir, structureId, 'log.jsonl');
  return {
    async append(structureId, entries) {
      if (entries.length > 0) await appendJsonl(file(structureId), ...entries);
    },
    async read(structureId, limit) {
      return (await readJsonl<LogEntry>(file(structureId))).reverse().slice(0, limit);
    },
  };
}

/** Options of the workspace log: a store, or the folder of the filesystem store. */
export type WorkspaceLogOptions = ({ store: WorkspaceLogStore; dir?: undefined } | { dir: string; store?: undefined }) & {
  registry: StructureRegistry;
  clock?: Clock;
  ids?: IdGenerator;
};

/** The workspace logs of all structures. */
export class WorkspaceLog {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly store: WorkspaceLogStore;

  constructor(private readonly options: WorkspaceLogOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
    this.store = options.store ?? createFsWorkspaceLogStore(options.dir!);
  }

  /** Appends decisions and milestones to a structure's log (one durable write). */
  async append(structureId: string, entries: Omit<LogEntry, 'id' | 'created_at'>[]): Promise<LogEntry[]> {
    const now = isoNow(this.clock);
    const full = entries.map((entry): LogEntry => ({ id: this.ids(), created_at: now, ...entry }));
    if (full.length > 0) await this.store.append(structureId, full);
    return full;
  }

  /** The log of a structure, newest first, at most `limit` entries; 404 for an unknown structure. */
  async read(structureId: string, limit: number): Promise<LogEntry[]> {
    this.options.registry.get(structureId);
    return this.store.read(structureId, limit);
  }
}
