/**
 * The temp files of atomic writes that a killed process leaves behind. write-file-atomic
 * names them `<file>.<uint32>` beside their target; they are never renamed once the
 * process is gone, so start-up removes them before anything reads or watches the home.
 *
 * Service files never end in `.<digits>`: under `.org/` every such name (`users.json.123`,
 * `artifacts.json.7`, `skills.json.9`, `x.eml.42`) is a leftover temp. The skills folder
 * and artifact shelves hold names that users chose, so their callers narrow what is
 * removed (`match`, `keep`).
 */
import { unlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { readdirSafe } from './safe-fs.js';

/** A temp name: any name, a dot and 1 to 10 digits (write-file-atomic's uint32). */
export const TEMP_NAME = /^.+\.\d{1,10}$/;

/** True when `name` is the name of a temp file (of any target). */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

/** True when `name` is a temp file of the file named `target` (same folder). */
export function isTempOf(name: string, target: string): boolean {
  return name.startsWith(`${target}.`) && /^\d{1,10}$/.test(name.slice(target.length + 1));
}

/** Deletes a file; absent is fine. */
export async function unlinkIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Options of {@link sweepTemps}. */
export interface SweepOptions {
  /** Descend into sub-folders (never through links). Default false. */
  recursive?: boolean;
  /** Keeps a temp-named file that is in fact a user's file (e.g. a listed artifact). */
  keep?: (dir: string, name: string) => boolean | Promise<boolean>;
  /** Only names matching this are candidates (default {@link TEMP_NAME}). */
  match?: RegExp;
}

/**
 * Removes leftover temp files in `dir` (and below with `recursive`). Links are neither
 * followed nor removed. Returns the removed files relative to `dir`; a missing `dir` is
 * nothing to do.
 */
export async function sweepTemps(dir: string, options: SweepOptions = {}): Promise<string[]> {
  const removed: string[] = [];
  const match = options.match ?? TEMP_NAME;
  const visit = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdirSafe(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (options.recursive) await visit(join(folder, entry.name));
        continue;
      }
      if (!entry.isFile() || !match.test(entry.name)) continue;
      if (options.keep && (await options.keep(folder, entry.name))) continue;
      await unlinkIfPresent(join(folder, entry.name));
      removed.push(relative(dir, join(folder, entry.name)));
    }
  };
  await visit(dir);
  return removed;
}
