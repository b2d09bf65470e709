/**
 * The workspace log of each structure: decisions and milestones agents committed,
 * appended to `.org/structures/<id>/log.jsonl` and read newest first.
 */
import { join } from 'node:path';
import { appendJsonl, readJsonl } from '../storage/index.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { StructureRegistry } from './registry.js';
import type { LogEntry } from './types.js';

/** Options of the workspace log. */
export interface WorkspaceLogOptions {
  registry: StructureRegistry;
  /** `.org/structures` */
  dir: string;
  clock?: Clock;
  ids?: IdGenerator;
}

/** The workspace logs of all structures. */
export class WorkspaceLog {
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(private readonly options: WorkspaceLogOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  private file(structureId: string): string {
    return join(this.options.dir, structureId, 'log.jsonl');
  }

  /** Appends decisions and milestones to a structure's log (one durable write). */
  async append(structureId: string, entries: Omit<LogEntry, 'id' | 'created_at'>[]): Promise<LogEntry[]> {
    const now = isoNow(this.clock);
    const full = entries.map((entry): LogEntry => ({ id: this.ids(), created_at: now, ...entry }));
    if (full.length > 0) await appendJsonl(this.file(structureId), ...full);
    return full;
  }

  /** The log of a structure, newest first, at most `limit` entries; 404 for an unknown structure. */
  async read(structureId: string, limit: number): Promise<LogEntry[]> {
    this.options.registry.get(structureId);
    const entries = await readJsonl<LogEntry>(this.file(structureId));
    return entries.reverse().slice(0, limit);
  }
}
