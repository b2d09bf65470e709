/** The PostgreSQL `WorkspaceLogStore`: table `workspace_log`, one row per entry. */
import type { LogEntry } from '../../core/structures/types.js';
import type { WorkspaceLogStore } from '../../core/structures/log.js';
import type { Db } from './db.js';

/** The store over `db`. */
export function createPgWorkspaceLogStore(db: Db): WorkspaceLogStore {
  return {
    async append(structureId, entries) {
      if (entries.length === 0) return;
      await db.query('INSERT INTO workspace_log (structure_id, entry) SELECT $1, e FROM unnest($2::jsonb[]) AS e', [
        structureId,
        entries.map((entry) => JSON.stringify(entry)),
      ]);
    },
    async read(structureId, limit) {
      const { rows } = await db.query<{ entry: LogEntry }>('SELECT entry FROM workspace_log WHERE structure_id = $1 ORDER BY pos DESC LIMIT $2', [structureId, limit]);
      return rows.map((row) => row.entry);
    },
  };
}
