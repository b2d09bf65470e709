/**
 * Vitest global setup: one PostgreSQL server for the whole run, shared by every test
 * file that needs one (each makes its own database with `testDatabase()`). The server
 * starts in the background, so runs without PostgreSQL tests do not wait for it; the
 * tests that need it wait until it accepts connections.
 */
import type { TestProject } from 'vitest/node';
import { adminUrlOf, freePort, startPostgres, type TestPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The maintenance database URL of the shared server (it may still be starting). */
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const port = await freePort();
  let server: TestPostgres | undefined;
  const starting = startPostgres(port).then(
    (started) => {
      server = started;
    },
    (error: unknown) => {
      process.stderr.write(`test PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}\n`);
    },
  );
  project.provide('postgresAdminUrl', adminUrlOf(port));
  return async () => {
    await starting;
    await server?.stop();
  };
}
