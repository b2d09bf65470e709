/**
 * Append-only JSON Lines logs (histories, timelines, the workspace log). Each append
 * is one `write` of one line followed by fsync, serialized per file. A line torn by a
 * crash is cut off before the next append and skipped by readers, so the file always
 * parses and every acknowledged line is kept.
 */
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { BoundedCache } from '../util/bounded-cache.js';
import { KeyedMutex } from './mutex.js';
import { mkdirSafe, openNoFollow, readFileSafe } from './safe-fs.js';

/** `a+` (read, append, create) as open flags, so `O_NOFOLLOW` can be added. */
const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT;

const mutex = new KeyedMutex();
/**
 * Files whose torn tail was already cut in this process. Bounded: a file dropped from it
 * only has its tail checked again on its next append.
 */
const repaired = new BoundedCache<string, true>({ maxEntries: 10_000, maxBytes: 4 * 1024 * 1024 });

/** Appends `records` to `file` as JSON lines, durably. */
export function appendJsonl(file: string, ...records: unknown[]): Promise<void> {
  return mutex.run(file, async () => {
    const handle = await openForAppend(file);
    try {
      if (!repaired.has(file)) {
        await cutTornTail(handle);
        repaired.set(file, true, 2 * file.length);
      }
      const text = records.map((record) => `${JSON.stringify(record)}\n`).join('');
      await handle.write(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

/** Opens (creating it and its folders when missing) without following links. */
async function openForAppend(file: string): Promise<FileHandle> {
  try {
    return await openNoFollow(file, APPEND_FLAGS, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdirSafe(dirname(file));
  return openNoFollow(file, APPEND_FLAGS, 0o666);
}

async function cutTornTail(handle: FileHandle): Promise<void> {
  const { size } = await handle.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return;
  const content = await handle.readFile();
  const cut = content.lastIndexOf(0x0a) + 1;
  await handle.truncate(cut);
}

/** How {@link readJsonl} treats a line that is not JSON. */
export interface ReadJsonlOptions {
  /**
   * Skip every such line instead of failing (for best-effort logs, where a foreign or
   * damaged line must not hide the rest). By default only a torn last line is skipped
   * and anything else is real corruption.
   */
  skipMalformed?: boolean;
}

/** Reads every complete record of a JSON Lines file ([] when absent); a torn last line is skipped. */
export async function readJsonl<T>(file: string, options: ReadJsonlOptions = {}): Promise<T[]> {
  let text: string;
  try {
    text = await readFileSafe(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: T[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch (error) {
      // Only the unterminated last line may be torn; anything else is real corruption.
      if (i !== lines.length - 1 && !options.skipMalformed) throw error;
    }
  }
  return records;
}
