/**
 * Atomic file writes: the data goes to a temporary file in the same folder, is fsynced,
 * then renamed over the target, so a reader (or a crash) sees the old file or the new
 * one, never half of either.
 */
import { mkdir, readFile, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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

/**
 * Deletes the temp files (`<name>.<number>`) that write-file-atomic leaves beside `file`
 * when the process is killed between writing and renaming one.
 */
export async function removeStaleTemps(file: string): Promise<void> {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length))) continue;
    await unlink(join(dirname(file), name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}
