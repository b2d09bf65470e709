import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from '../../../test/support/database.js';
import { openDb, type Db } from './db.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';

describe('schema migrations', () => {
  let database: TestDatabase;
  const pools: Db[] = [];
  const open = () => {
    const db = openDb({ url: database.url });
    pools.push(db);
    return db;
  };
  beforeAll(async () => {
    database = await testDatabase();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(pools.map((db) => db.close()));
    await database.drop();
  });

  it('applies each step once when several instances start at the same moment, and nothing on a second start', async () => {
    const extra = { version: MIGRATIONS.length + 1, name: 'count-runs', sql: 'CREATE TABLE migration_probe (n integer); INSERT INTO migration_probe VALUES (1);' };
    const reports = await Promise.all(Array.from({ length: 4 }, () => migrate(open(), [...MIGRATIONS, extra])));
    const applied = reports.flatMap((report) => report.applied).sort((a, b) => a - b);
    expect(applied).toEqual([...MIGRATIONS.map((migration) => migration.version), extra.version]);
    const db = open();
    expect((await db.query('SELECT count(*)::int AS n FROM migration_probe')).rows[0]).toEqual({ n: 1 });
    expect(await migrate(db, [...MIGRATIONS, extra])).toEqual({ applied: [], version: extra.version });
    const { rows } = await db.query<{ version: number }>('SELECT version FROM org_schema_migrations ORDER BY version');
    expect(rows.map((row) => row.version)).toEqual(applied);
  });

  it('refuses a database migrated by a newer org, and a step whose name changed', async () => {
    const db = open();
    await expect(migrate(db, MIGRATIONS)).rejects.toThrow(/newer than this org knows/);
    const renamed = MIGRATIONS.map((migration, index) => (index === 0 ? { ...migration, name: 'renamed' } : migration));
    await expect(migrate(db, [...renamed, { version: MIGRATIONS.length + 1, name: 'count-runs', sql: '' }])).rejects.toThrow(/"initial" in the database but "renamed" here/);
  });

  it('rolls back a failing step whole, naming it', async () => {
    const fresh = await testDatabase();
    const db = openDb({ url: fresh.url });
    try {
      const broken = { version: MIGRATIONS.length + 1, name: 'broken', sql: 'CREATE TABLE half_done (n integer); SELECT no_such_function();' };
      await expect(migrate(db, [...MIGRATIONS, broken])).rejects.toThrow(/schema migration \d+ \(broken\) failed/);
      expect((await db.query(`SELECT to_regclass('half_done') AS t`)).rows[0]).toEqual({ t: null });
      expect((await migrate(db, MIGRATIONS)).applied).toEqual([]);
    } finally {
      await db.close();
      await fresh.drop();
    }
  });
});
