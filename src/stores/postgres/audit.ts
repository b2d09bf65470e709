/** The PostgreSQL `AuditStore`: table `audit_log`, one row per entry, filtered in SQL. */
import type { AuditStore } from '../../core/audit/index.js';
import type { AuditEntry } from '../../core/schemas/index.js';
import type { Db } from './db.js';

/** The store over `db`. */
export function createPgAuditStore(db: Db): AuditStore {
  return {
    async append(entry) {
      await db.query('INSERT INTO audit_log (id, structure_id, action, at, entry) VALUES ($1, $2, $3, $4, $5)', [
        entry.id,
        entry.structure_id,
        entry.action,
        entry.at,
        JSON.stringify(entry),
      ]);
    },
    async read(filter) {
      const where: string[] = [];
      const values: unknown[] = [];
      const bind = (value: unknown) => {
        values.push(value);
        return `$${values.length}`;
      };
      if (filter.structureId !== undefined) where.push(`structure_id = ${bind(filter.structureId)}`);
      if (filter.actions !== undefined) where.push(`action = ANY(${bind(filter.actions)}::text[])`);
      if (filter.actor !== undefined) {
        const actor = bind(filter.actor);
        where.push(`(entry->'actor'->>'id' = ${actor} OR entry->'actor'->>'email' = ${actor})`);
      }
      if (filter.since !== undefined) where.push(`at >= ${bind(filter.since)}`);
      if (filter.until !== undefined) where.push(`at < ${bind(filter.until)}`);
      // An unknown id pages to nothing, as on the filesystem.
      if (filter.before !== undefined) where.push(`pos < COALESCE((SELECT pos FROM audit_log WHERE id = ${bind(filter.before)}), 0)`);
      const limit = bind(Math.min(filter.limit, Number.MAX_SAFE_INTEGER));
      const sql = `SELECT entry FROM audit_log ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY pos DESC LIMIT ${limit}`;
      const { rows } = await db.query<{ entry: AuditEntry }>(sql, values);
      return rows.map((row) => row.entry);
    },
  };
}
