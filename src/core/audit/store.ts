/**
 * Storage of the audit log, one implementation per backend: entries are only ever
 * appended (nothing edits or removes one) and read newest first through a filter that
 * every backend can apply where the entries are (a file scan here, SQL in PostgreSQL).
 */
import { join } from 'node:path';
import type { AuditEntry } from '../schemas/audit.js';
import { appendJsonl, readJsonl } from '../storage/index.js';

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
 * The filesystem store: one append-only JSON-lines file (`<state>/audit.jsonl`), written
 * with fsync before an append resolves; a torn last line (a crash mid-write) is cut.
 */
export function createFsAuditStore(stateDir: string): AuditStore {
  const file = join(stateDir, 'audit.jsonl');
  return {
    append: (entry) => appendJsonl(file, entry),
    async read(filter) {
      const entries = await readJsonl<AuditEntry>(file);
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
  };
}
