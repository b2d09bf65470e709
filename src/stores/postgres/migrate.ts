/**
 * Schema migrations: numbered plain-SQL steps applied in order, each in its own
 * transaction and recorded in `org_schema_migrations`. Every instance runs `migrate` at
 * start; a session-level advisory lock makes instances that start together take turns,
 * so each step runs once, and a database already at the newest version is left as it
 * is. A database migrated by a newer org (versions this one does not know) is refused.
 */
import type { Db } from './db.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

/** The advisory lock key of migrations (any constant shared by every org instance). */
const MIGRATION_LOCK = 0x6f7267; // "org"

/** What a run of the migrations did. */
export interface MigrationReport {
  /** Versions applied by this call, in order. */
  applied: number[];
  /** The schema version afterwards. */
  version: number;
}

/** Brings the schema up to date; safe to call from several instances at once. */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationReport> {
  const client = await db.pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS org_schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number; name: string }>('SELECT version, name FROM org_schema_migrations ORDER BY version');
      const known = new Map(migrations.map((migration) => [migration.version, migration]));
      for (const row of rows) {
        const migration = known.get(row.version);
        if (!migration) {
          throw new Error(`the database schema is at version ${rows.at(-1)?.version}, newer than this org knows (${migrations.at(-1)?.version ?? 0}): upgrade org`);
        }
        if (migration.name !== row.name) throw new Error(`schema migration ${row.version} is "${row.name}" in the database but "${migration.name}" here`);
      }
      const done = new Set(rows.map((row) => row.version));
      const applied: number[] = [];
      for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO org_schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw new Error(`schema migration ${migration.version} (${migration.name}) failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
        applied.push(migration.version);
      }
      return { applied, version: Math.max(0, ...migrations.map((migration) => migration.version)) };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
