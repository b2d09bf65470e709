/**
 * The exclusive lock of a home: one `org serve` per home, so two servers never write the
 * same state side by side and diverge. The lock is `<home>/.org/serve.lock`, holding the
 * owner's pid, host and URL. A lock whose process is gone (a crash, SIGKILL) is taken
 * over; a live one refuses the second server with a message naming the first.
 *
 * Creation is atomic (`open` with `wx`). A stale lock is first renamed away, so that of
 * two servers starting at once over the same stale lock only one takes it over.
 */
import { hostname } from 'node:os';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { OrgError } from '../errors.js';
import { PRIVATE_FILE_MODE } from './modes.js';

/** What a lock file says about its owner. */
export interface LockOwner {
  pid: number;
  host: string;
  started_at: string;
  /** The owner's listening URL, once known. */
  url?: string;
}

/** A held lock. */
export interface HomeLock {
  readonly file: string;
  /** Records the listening URL, so a refused second server can name it. */
  setUrl(url: string): Promise<void>;
  /** Removes the lock (only if it is still ours). */
  release(): Promise<void>;
}

/** Collaborators of {@link acquireHomeLock} (tests replace them). */
export interface HomeLockOptions {
  /** Whether a process is alive (default: `process.kill(pid, 0)`). */
  isAlive?: (pid: number) => boolean;
  pid?: number;
  host?: string;
}

/** The lock file of a state folder (`<home>/.org`). */
export function lockPath(stateDir: string): string {
  return join(stateDir, 'serve.lock');
}

function defaultIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — alive all the same.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(file, 'utf8')) as Partial<LockOwner>;
    return typeof owner.pid === 'number' ? (owner as LockOwner) : undefined;
  } catch {
    return undefined; // gone, or cut off mid-write by a crash: stale either way
  }
}

async function writeOwner(file: string, owner: LockOwner, flag: 'wx' | 'w'): Promise<void> {
  const handle = await open(file, flag, PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(`${JSON.stringify(owner)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Takes the lock of `stateDir` (which must exist). Throws `OrgError` `conflict` when a
 * live process holds it, on this host or (as far as can be told) another one.
 */
export async function acquireHomeLock(stateDir: string, home: string, options: HomeLockOptions = {}): Promise<HomeLock> {
  const file = lockPath(stateDir);
  const isAlive = options.isAlive ?? defaultIsAlive;
  const me: LockOwner = { pid: options.pid ?? process.pid, host: options.host ?? hostname(), started_at: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await writeOwner(file, me, 'wx');
      return lockHandle(file, me);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(file);
    if (owner && owner.host !== me.host) {
      throw new OrgError('conflict', `${home} is in use by org serve (pid ${owner.pid}) on ${owner.host}${owner.url ? ` at ${owner.url}` : ''}; if that server is gone, delete ${file}`);
    }
    if (owner && owner.pid !== me.pid && isAlive(owner.pid)) {
      throw new OrgError(
        'conflict',
        `${home} is already served by org serve (pid ${owner.pid}${owner.url ? `, ${owner.url}` : ''}); stop it first, or serve another home with --home`,
      );
    }
    // Stale: its process is gone. Move it aside; of several racers only one wins the rename.
    const aside = `${file}.stale-${me.pid}-${attempt}`;
    try {
      await rename(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      continue;
    }
    // A racer may have taken over between our read and our rename: then what we moved is
    // its live lock, which goes back.
    const moved = await readOwner(aside);
    if (moved && (!owner || moved.pid !== owner.pid || moved.started_at !== owner.started_at)) {
      await rename(aside, file);
      continue;
    }
    await unlink(aside).catch(() => undefined);
  }
  throw new OrgError('conflict', `could not take the lock ${file}: other servers keep starting on ${home}`);
}

function lockHandle(file: string, me: LockOwner): HomeLock {
  let owner = me;
  const ours = async () => (await readOwner(file))?.pid === me.pid;
  return {
    file,
    async setUrl(url) {
      if (!(await ours())) return;
      owner = { ...owner, url };
      await writeOwner(file, owner, 'w');
    },
    async release() {
      if (await ours()) await unlink(file).catch(() => undefined);
    },
  };
}
