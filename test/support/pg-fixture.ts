/**
 * PostgreSQL fixtures for the store contract suites: one migrated database per test
 * file, emptied before each fixture, and a new pool for each "reopen" (a restart).
 */
import { afterAll, beforeAll } from 'vitest';
import { openDb, type Db } from '../../src/stores/postgres/db.js';
import { migrate } from '../../src/stores/postgres/migrate.js';
import { testDatabase, truncateAll, type TestDatabase } from './database.js';

/** The database of the calling test file, migrated; pools opened through it close after the file. */
export function usePostgres(): { url(): string; open(): Db; fixture<S>(make: (db: Db) => S | Promise<S>): () => Promise<{ store: S; reopen(): Promise<S>; cleanup(): Promise<void> }> } {
  let database: TestDatabase | undefined;
  const pools: Db[] = [];
  beforeAll(async () => {
    database = await testDatabase();
    const db = openDb({ url: database.url });
    await migrate(db);
    await db.close();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(pools.splice(0).map((db) => db.close()));
    await database?.drop();
  });
  const open = () => {
    const db = openDb({ url: database!.url });
    pools.push(db);
    return db;
  };
  return {
    url: () => database!.url,
    open,
    fixture: (make) => async () => {
      await truncateAll(database!.url);
      return { store: await make(open()), reopen: async () => make(open()), cleanup: async () => undefined };
    },
  };
}
