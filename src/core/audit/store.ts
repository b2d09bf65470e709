/**
 * Storage of the audit log, one implementation per backend: entries are only ever
 * appended (nothing edits or removes one) and read newest first through a filter that
 * every backend can apply where the entries are (a file scan here, SQL in PostgreSQL).
 */
import { join } from 'node:path';
import type { AuditEntry } from '../schemas/audit.js';
import { GroupFile, readJsonl } from '../storage/index.js';

/** Which entries a read wants; every member narrows, none given means all. */
export interface AuditFilter {
  /** Only entries of this structure. */
  structureId?: string;
  /** Only these actions (already expanded from prefixes). */
  actions?: readonly string[];
  /** Only entries whose actor has this id or e-mail address. */
  actor?: string;
  /** Only entries at or after this ISO time. */
  since?: string;
  /** Only entries before this ISO time. */
  until?: string;
  /** Only entries older than the entry with this id (paging); none when the id is unknown. */
  before?: string;
  /** At most this many. */
  limit: number;
}

/** Where audit entries are kept. */
export interface AuditStore {
  /** Appends one entry durably (acknowledged only once it is on disk). */
  append(entry: AuditEntry): Promise<void>;
  /** The entries matching `filter`, newest first. */
  read(filter: AuditFilter): Promise<AuditEntry[]>;
  /** Waits for appends in flight and releases what the store holds open. */
  close?(): Promise<void>;
}

/** True when `entry` passes every member of `filter` but `before` and `limit`. */
export function matchesFilter(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.structureId !== undefined && entry.structure_id !== filter.structureId) return false;
  if (filter.actions !== undefined && !filter.actions.includes(entry.action)) return false;
  if (filter.actor !== undefined && entry.actor.id !== filter.actor && entry.actor.email !== filter.actor) return false;
  if (filter.since !== undefined && entry.at < filter.since) return false;
  if (filter.until !== undefined && entry.at >= filter.until) return false;
  return true;
}

/**
 * The filesystem store: one append-only JSON-lines file (`<state>/audit.jsonl`). An append
 * resolves once its line is on disk; appends made while a write is in flight share the
 * next write and its one `fdatasync` (group commit), so concurrent actions do not queue
 * for one sync each. The file is kept open while busy and closed after a second without
 * appends; a torn last line (a crash mid-write) is cut when it is opened.
 */
export function createFsAuditStore(stateDir: string): AuditStore {
  const path = join(stateDir, 'audit.jsonl');
  const file = new GroupFile(path, { closeWhenIdleMs: 1000 });
  return {
    append: (entry) => file.append(`${JSON.stringify(entry)}\n`),
    async read(filter) {
      const entries = await readJsonl<AuditEntry>(path);
      let end = entries.length;
      if (filter.before !== undefined) {
        end = entries.findIndex((entry) => entry.id === filter.before);
        if (end < 0) return [];
      }
      const found: AuditEntry[] = [];
      for (let i = end - 1; i >= 0 && found.length < filter.limit; i -= 1) {
        if (matchesFilter(entries[i]!, filter)) found.push(entries[i]!);
      }
      return found;
    },
    close: () => file.close(),
  };
}
