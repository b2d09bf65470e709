/**
 * The bundled skill library: the package's own `skills/`, copied into a new home so
 * that a first chat has playbooks to follow. It is a copy, so the home's files are the
 * user's to edit; an existing library is never touched.
 */
import { constants } from 'node:fs';
import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isSkillFileName } from './loader.js';

/** What seeding did. */
export interface SeedResult {
  /** Slugs copied. */
  copied: string[];
  /** Why nothing was copied, when nothing was. */
  skipped?: 'exists' | 'same-folder';
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Copies the bundled skills from `source` into `target` when `target` does not exist
 * yet (a new home), creating it. `force` copies into an existing folder too, never
 * overwriting a file that is there (`org init` on a folder without skills).
 */
export async function seedBundledSkills(target: string, source: string, options: { force?: boolean } = {}): Promise<SeedResult> {
  if (resolve(target) === resolve(source)) return { copied: [], skipped: 'same-folder' };
  if (!options.force && (await isDir(target))) return { copied: [], skipped: 'exists' };
  await mkdir(target, { recursive: true });
  const copied: string[] = [];
  for (const name of (await readdir(source)).filter(isSkillFileName).sort()) {
    try {
      await copyFile(join(source, name), join(target, name), constants.COPYFILE_EXCL);
      copied.push(name.slice(0, -3));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return { copied };
}
