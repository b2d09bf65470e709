/**
 * Atomic file writes: the data goes to a temporary file in the same folder, is fsynced,
 * then renamed over the target, so a reader (or a crash) sees the old file or the new
 * one, never half of either.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/** Writes `data` to `file` atomically (temp file, fsync, rename), creating its folder. */
export async function writeAtomic(file: string, data: string | Buffer, mode?: number): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, data, { fsync: true, ...(mode === undefined ? {} : { mode }) });
}

/** Writes `value` as pretty JSON (with a final newline) atomically. */
export async function writeJsonAtomic(file: string, value: unknown, mode?: number): Promise<void> {
  await writeAtomic(file, `${JSON.stringify(value, null, 2)}\n`, mode);
}

/** Reads a JSON file, or returns `fallback` when it does not exist. */
export async function readJson<T>(file: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw error;
  }
  return JSON.parse(text) as T;
}
