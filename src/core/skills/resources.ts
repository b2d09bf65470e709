/**
 * A skill's own files (`scripts/`, `references/`, `assets/` of an imported Agent
 * Skill) in `<scope>/<slug>/`, beside `<slug>.md` (`<scope>` is the skills folder for an
 * instance skill, the structure's folder for a structure's). They are data: kept,
 * listed, read and exported, never run. Paths are relative and `/`-separated; hidden
 * files and folders (`.git/`, `.env`) are never written, listed or read (a `.git/config`
 * planted there would run its hooks on the next `git status`); symbolic links are never
 * followed (a link inside the folder is neither listed nor read), and every write is
 * atomic.
 */
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { invalid } from '../errors.js';
import { assertNoLinkedFolders, readdirSafe, readFileSafe, writeAtomic } from '../storage/index.js';
import { isHiddenPath, isSafeRelativePath } from './agent-skills/zip.js';

/** Most files a skill may keep. */
export const MAX_SKILL_FILES = 512;
/** Largest total size of a skill's files, in bytes. */
export const MAX_SKILL_FILES_BYTES = 16 * 1024 * 1024;

/** The folder of a skill's files. */
export function resourceDir(root: string, slug: string): string {
  return join(root, slug);
}

/** Paths of a skill's files, sorted; empty when it has none. Links and special files are skipped. */
export async function listResources(root: string, slug: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    let entries;
    try {
      entries = await readdirSafe(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !entry.name.startsWith('.')) await walk(join(dir, entry.name), path);
      else if (entry.isFile() && isSafeRelativePath(path) && !isHiddenPath(path) && !/\.\d+$/.test(entry.name)) found.push(path);
    }
  };
  await walk(resourceDir(root, slug), '');
  return found.sort();
}

/** One file of a skill; undefined when absent, unsafe or not a regular file (links included). */
export async function readResource(root: string, slug: string, path: string): Promise<Uint8Array | undefined> {
  if (!isSafeRelativePath(path) || isHiddenPath(path)) return undefined;
  const file = join(resourceDir(root, slug), ...path.split('/'));
  let data: Buffer;
  try {
    // No folder on the way and not the file itself may be a link (safe-fs refuses them).
    data = await readFileSafe(file);
  } catch {
    return undefined;
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** Checks a set of files before anything is written (paths, count, size). */
export function checkResources(files: ReadonlyMap<string, Uint8Array>): void {
  const errors = [];
  let total = 0;
  for (const [path, data] of files) {
    if (!isSafeRelativePath(path) || path === 'SKILL.md') errors.push({ path: `files.${path.slice(0, 100)}`, message: 'must be a safe relative path other than SKILL.md' });
    else if (isHiddenPath(path)) errors.push({ path: `files.${path.slice(0, 100)}`, message: 'must not be a hidden file or folder (a name starting with ".")' });
    total += data.length;
  }
  if (files.size > MAX_SKILL_FILES) errors.push({ path: 'files', message: `at most ${MAX_SKILL_FILES} files` });
  if (total > MAX_SKILL_FILES_BYTES) errors.push({ path: 'files', message: `at most ${MAX_SKILL_FILES_BYTES} bytes in all` });
  if (errors.length > 0) throw invalid('invalid skill files', errors);
}

/**
 * Replaces a skill's files with `files` (atomic writes; files no longer present are
 * removed). Returns the paths written, for the git commit.
 */
export async function replaceResources(root: string, slug: string, files: ReadonlyMap<string, Uint8Array>): Promise<string[]> {
  checkResources(files);
  const dir = resourceDir(root, slug);
  const before = await listResources(root, slug);
  const written: string[] = [];
  for (const [path, data] of files) {
    const target = join(dir, ...path.split('/'));
    await writeAtomic(target, Buffer.from(data));
    written.push(target);
  }
  for (const path of before) {
    if (files.has(path)) continue;
    const target = join(dir, ...path.split('/'));
    await assertNoLinkedFolders(dirname(target));
    await rm(target, { force: true });
    written.push(target);
  }
  if (files.size === 0) {
    await assertNoLinkedFolders(dir);
    await rm(dir, { recursive: true, force: true });
  }
  return written;
}
