/**
 * Durable directory entries: after a file is created, its name is on disk only once
 * its directory is fsynced. Requests for the same directory that arrive while one
 * fsync runs share the next one, so creating many files costs few fsyncs.
 */
import { open } from 'node:fs/promises';

interface DirState {
  running?: Promise<void>;
  next?: Promise<void>;
}

const dirs = new Map<string, DirState>();

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some filesystems do not support fsync on directories; their entries are durable anyway.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL' && (error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
  } finally {
    await handle.close();
  }
}

/** Makes the entries of `dir` durable (an fsync of the directory, shared with concurrent callers). */
export function syncDirectory(dir: string): Promise<void> {
  let state = dirs.get(dir);
  if (!state) {
    state = {};
    dirs.set(dir, state);
  }
  const current = state;
  if (current.next) return current.next;
  if (!current.running) {
    current.running = fsyncDir(dir).finally(() => {
      current.running = undefined;
      if (!current.next) dirs.delete(dir);
    });
    return current.running;
  }
  // One is running: it may have started before our file was created, so wait for the next.
  current.next = current.running
    .catch(() => undefined)
    .then(() => {
      current.next = undefined;
      current.running = fsyncDir(dir).finally(() => {
        current.running = undefined;
        if (!current.next) dirs.delete(dir);
      });
      return current.running;
    });
  return current.next;
}
