/**
 * A fresh database on the run's shared PostgreSQL server (see postgres-setup.ts), for a
 * test file: `const db = await testDatabase()` in `beforeAll`, `await db.drop()` after.
 */
import pg from 'pg';
import { inject } from 'vitest';
import { awaitStatus, createDatabase, dropDatabase } from './postgres.js';

/** A database of one test file. */
export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Creates an empty database for the calling test file. */
export async function testDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('postgresAdminUrl');
  await awaitStatus(inject('postgresStatusDir'));
  const url = await createDatabase(adminUrl);
  return { url, drop: () => dropDatabase(adminUrl, url) };
}

/** Empties every table of org's schema (between the tests of one file). */
export async function truncateAll(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'org_schema_migrations'`,
    );
    if (rows.length > 0) await client.query(`TRUNCATE ${rows.map((row) => row.name).join(', ')} RESTART IDENTITY CASCADE`);
  } finally {
    await client.end();
  }
}
