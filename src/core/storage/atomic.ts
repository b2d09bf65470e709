/**
 * Atomic file writes: the data goes to a temporary file in the same folder, is fsynced,
 * then renamed over the target, so a reader (or a crash) sees the old file or the new
 * one, never half of either. Links are never followed (see `safe-fs.ts`).
 */
import { basename, dirname, join } from 'node:path';
import { readFileSafe, readdirSafe, writeFileAtomicSafe } from './safe-fs.js';
import { isTempOf, unlinkIfPresent } from './temps.js';

/** Writes `data` to `file` atomically (temp file, fsync, rename), creating its folder. */
export async function writeAtomic(file: string, data: string | Buffer, mode?: number): Promise<void> {
  await writeFileAtomicSafe(file, data, mode);
}

/** Writes `value` as pretty JSON (with a final newline) atomically. */
export async function writeJsonAtomic(file: string, value: unknown, mode?: number): Promise<void> {
  await writeAtomic(file, `${JSON.stringify(value, null, 2)}\n`, mode);
}

/** Reads a JSON file, or returns `fallback` when it does not exist. */
export async function readJson<T>(file: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await readFileSafe(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw error;
  }
  return JSON.parse(text) as T;
}

/**
 * Deletes the temp files (`<name>.<number>`) that write-file-atomic leaves beside `file`
 * when the process is killed between writing and renaming one.
 */
export async function removeStaleTemps(file: string): Promise<void> {
  let entries;
  try {
    entries = await readdirSafe(dirname(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const name = basename(file);
  for (const entry of entries) {
    if (entry.isFile() && isTempOf(entry.name, name)) await unlinkIfPresent(join(dirname(file), entry.name));
  }
}
