/**
 * Loading the skills folder into a catalog, tolerant of bad files: a file that does not
 * parse is a problem, never a stop. A usable snapshot (`snapshot.ts`) supplies every
 * skill whose file's mtime and size are unchanged, so a restart reads only new and
 * changed files and drops removed ones. Files are stat'ed and read synchronously in
 * slices with a yield between slices (several times faster than thread-pool reads for
 * thousands of small files, and the server answers in between).
 */
import { lstatSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { unlinkIfPresent } from '../storage/index.js';
import { Catalog } from './catalog.js';
import type { ResolvedSkillStoreOptions } from './options.js';
import { createScopedIndex, loadScopedIndex, type SkillIndexOptions } from './search/index.js';
import { readSkillFileSync, type FileSignature } from './skill-file.js';
import { fileKey, isSkillFileName, isStructureFolderName, keyString, parseKey, relativeFile } from './skill-key.js';
import { readSnapshot } from './snapshot.js';
export { isSkillFileName };
import { DELETED_DIR, TRASH_LINK_PROBLEM } from './trash.js';

/** What a load did, for logs and tests. */
export interface LoadReport {
  /** Files read and parsed. */
  read: number;
  /** Skills taken from the snapshot without reading their file. */
  reused: number;
  /** Snapshot entries whose file is gone. */
  removed: number;
  problems: number;
  /** Temp files of interrupted writes removed from the folder (with the `sweepTemps` option). */
  removedTemps: string[];
  /** Why the snapshot was not used (`none` when there was none), or `used`. */
  snapshot: string;
  ms: number;
}

/** A skill file's temp: `<slug>.md.<n>` (a user's other files in `skills/` are left alone). */
export const SKILL_TEMP = /^[a-z0-9]+(?:-[a-z0-9]+)*\.md\.\d{1,10}$/;

/** Files stat'ed or read synchronously between two yields to the event loop. */
const SLICE = 256;

/** Size and mtime of a regular file or a link (never its target); undefined when absent. */
function statSignature(file: string): FileSignature | undefined {
  const info = lstatSync(file, { throwIfNoEntry: false });
  return info?.isFile() || info?.isSymbolicLink() ? { mtimeMs: info.mtimeMs, size: info.size } : undefined;
}

/** One entry of a scope folder, by its path relative to the root (`foo.md`, `<structure_id>/foo.md`). */
interface ListedFile {
  relative: string;
  link: boolean;
}

/**
 * The skill files of the root and of every structure's folder, links included (each
 * becomes a problem, never a skill). A structure's folder that is a link is never entered.
 */
async function listSkillFiles(options: ResolvedSkillStoreOptions, entries: Dirent[], report: LoadReport, catalog: Catalog): Promise<ListedFile[]> {
  const files: ListedFile[] = [];
  const take = (entry: Dirent, prefix: string): void => {
    if ((entry.isFile() || entry.isSymbolicLink()) && isSkillFileName(entry.name)) files.push({ relative: prefix + entry.name, link: entry.isSymbolicLink() });
  };
  const sweep = async (dir: string, prefix: string, listed: Dirent[]): Promise<void> => {
    if (!options.sweepTemps) return;
    for (const entry of listed) {
      if (!entry.isFile() || !SKILL_TEMP.test(entry.name)) continue;
      await unlinkIfPresent(join(dir, entry.name));
      report.removedTemps.push(prefix + entry.name);
    }
  };
  const trashLink = (dir: string, prefix: string, listed: Dirent[]): void => {
    if (!listed.some((entry) => entry.name === DELETED_DIR && entry.isSymbolicLink())) return;
    const signature = statSignature(join(dir, DELETED_DIR));
    if (signature) catalog.putProblem(prefix + DELETED_DIR, TRASH_LINK_PROBLEM, signature);
  };
  for (const entry of entries) take(entry, '');
  await sweep(options.root, '', entries);
  trashLink(options.root, '', entries);
  for (const entry of entries) {
    if (!isStructureFolderName(entry.name)) continue;
    if (entry.isSymbolicLink()) {
      const signature = statSignature(join(options.root, entry.name));
      if (signature) catalog.putProblem(entry.name, 'is a symbolic link; a structure’s skills folder must be a real folder (org never follows links)', signature);
      continue;
    }
    if (!entry.isDirectory()) continue;
    const dir = join(options.root, entry.name);
    let listed: Dirent[];
    try {
      listed = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const inner of listed) take(inner, `${entry.name}/`);
    await sweep(dir, `${entry.name}/`, listed);
    trashLink(dir, `${entry.name}/`, listed);
  }
  return files;
}

/**
 * Builds the catalog of `options.root` (the instance library's files and each
 * structure's folder, see `skill-key.ts`), from the snapshot when there is a usable one.
 */
export async function loadCatalog(options: ResolvedSkillStoreOptions, indexOptions: SkillIndexOptions): Promise<{ catalog: Catalog; report: LoadReport }> {
  const started = performance.now();
  const { catalog, reason } = await fromSnapshot(options, indexOptions);
  const report: LoadReport = { read: 0, reused: 0, removed: 0, problems: 0, removedTemps: [], snapshot: reason, ms: 0 };
  const entries = await readdir(options.root, { withFileTypes: true });
  // Links are listed too: each becomes a problem ("is a symbolic link"), never a skill.
  const files = await listSkillFiles(options, entries, report, catalog);
  const seen = new Set<string>();
  const toRead: string[] = [];
  for (let i = 0; i < files.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const { relative, link } of files.slice(i, i + SLICE)) {
      const read = fileKey(relative);
      if (read.kind !== 'skill') {
        if (read.kind === 'bad-name') {
          const signature = statSignature(join(options.root, relative));
          if (signature) catalog.putProblem(relative, 'file name is not a valid slug', signature);
        }
        continue;
      }
      const key = keyString(read.key);
      seen.add(key);
      const held = catalog.signatureOf(key);
      if (held && !link) {
        const signature = statSignature(join(options.root, relative));
        if (signature && held.mtimeMs === signature.mtimeMs && held.size === signature.size) {
          report.reused++;
          continue;
        }
      }
      toRead.push(key);
    }
  }

  report.read = toRead.length;
  for (let i = 0; i < toRead.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const key of toRead.slice(i, i + SLICE)) {
      options.onFileRead(key);
      const outcome = readSkillFileSync(options.root, parseKey(key));
      if (outcome === 'unchanged' || outcome.kind === 'missing') continue;
      if (outcome.kind === 'skill') catalog.put(outcome.skill, outcome.signature);
      else catalog.putProblem(relativeFile(key), outcome.message, outcome.signature, outcome.line, outcome.structureId);
    }
  }
  for (const key of catalog.keys()) {
    if (seen.has(key)) continue;
    catalog.drop(key);
    report.removed++;
  }
  report.problems = catalog.problems.size;
  report.ms = Math.round(performance.now() - started);
  return { catalog, report };
}

/** The catalog the snapshot holds, or an empty one and the reason the snapshot was not used. */
async function fromSnapshot(options: ResolvedSkillStoreOptions, indexOptions: SkillIndexOptions): Promise<{ catalog: Catalog; reason: string }> {
  const empty = (reason: string) => ({ catalog: new Catalog(createScopedIndex(indexOptions)), reason });
  if (!options.persistIndex) return empty('disabled');
  const read = await readSnapshot(options.stateDir, options.root);
  if ('rejected' in read) return empty(read.rejected);
  try {
    const index = await loadScopedIndex(read.index, indexOptions);
    // The signatures and the index describe the same skills, or the snapshot is not trusted.
    if (index.size !== read.signatures.size) return empty('corrupt');
    for (const key of read.signatures.keys()) {
      const file = fileKey(relativeFile(key));
      if (file.kind !== 'skill' || keyString(file.key) !== key || !index.has(key)) return empty('corrupt');
    }
    return { catalog: new Catalog(index, read.signatures), reason: 'used' };
  } catch {
    return empty('corrupt');
  }
}
