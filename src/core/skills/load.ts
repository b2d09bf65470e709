/**
 * Loading the skills folder into a catalog, tolerant of bad files: a file that does not
 * parse is a problem, never a stop. A usable snapshot (`snapshot.ts`) supplies every
 * skill whose file's mtime and size are unchanged, so a restart reads only new and
 * changed files and drops removed ones. Files are stat'ed and read synchronously in
 * slices with a yield between slices (several times faster than thread-pool reads for
 * thousands of small files, and the server answers in between).
 */
import { lstatSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { unlinkIfPresent } from '../storage/index.js';
import { Catalog, relativeFile } from './catalog.js';
import type { ResolvedSkillStoreOptions } from './options.js';
import { createSkillIndex, loadSkillIndex, type SkillIndexOptions } from './search/index.js';
import { readSkillFileSync, type FileSignature } from './skill-file.js';
import { isValidSlug } from './slug.js';
import { readSnapshot } from './snapshot.js';
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

/** True for names the skills folder holds skills in: `*.md`, not hidden, not temp files. */
export function isSkillFileName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.') && !name.startsWith('~') && name.length > 3;
}

/** Size and mtime of a regular file or a link (never its target); undefined when absent. */
function statSignature(file: string): FileSignature | undefined {
  const info = lstatSync(file, { throwIfNoEntry: false });
  return info?.isFile() || info?.isSymbolicLink() ? { mtimeMs: info.mtimeMs, size: info.size } : undefined;
}

/** Builds the catalog of `options.root`, from the snapshot when there is a usable one. */
export async function loadCatalog(options: ResolvedSkillStoreOptions, indexOptions: SkillIndexOptions): Promise<{ catalog: Catalog; report: LoadReport }> {
  const started = performance.now();
  const { catalog, reason } = await fromSnapshot(options, indexOptions);
  const report: LoadReport = { read: 0, reused: 0, removed: 0, problems: 0, removedTemps: [], snapshot: reason, ms: 0 };
  const entries = await readdir(options.root, { withFileTypes: true });
  if (entries.some((entry) => entry.name === DELETED_DIR && entry.isSymbolicLink())) {
    const signature = statSignature(join(options.root, DELETED_DIR));
    if (signature) catalog.putProblem(DELETED_DIR, TRASH_LINK_PROBLEM, signature);
  }
  if (options.sweepTemps) {
    for (const entry of entries) {
      if (!entry.isFile() || !SKILL_TEMP.test(entry.name)) continue;
      await unlinkIfPresent(join(options.root, entry.name));
      report.removedTemps.push(entry.name);
    }
  }
  // Links are listed too: each becomes a problem ("is a symbolic link"), never a skill.
  const files = entries.filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && isSkillFileName(entry.name));
  const seen = new Set<string>();
  const toRead: string[] = [];
  for (let i = 0; i < files.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const entry of files.slice(i, i + SLICE)) {
      const id = entry.name.slice(0, -3);
      seen.add(id);
      if (!isValidSlug(id)) {
        const signature = statSignature(join(options.root, entry.name));
        if (signature) catalog.putProblem(entry.name, 'file name is not a valid slug', signature);
        continue;
      }
      const held = catalog.signatureOf(id);
      if (held && !entry.isSymbolicLink()) {
        const signature = statSignature(join(options.root, entry.name));
        if (signature && held.mtimeMs === signature.mtimeMs && held.size === signature.size) {
          report.reused++;
          continue;
        }
      }
      toRead.push(id);
    }
  }

  report.read = toRead.length;
  for (let i = 0; i < toRead.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const id of toRead.slice(i, i + SLICE)) {
      options.onFileRead(id);
      const outcome = readSkillFileSync(options.root, id);
      if (outcome === 'unchanged' || outcome.kind === 'missing') continue;
      if (outcome.kind === 'skill') catalog.put(outcome.skill, outcome.signature);
      else catalog.putProblem(relativeFile(id), outcome.message, outcome.signature, outcome.line);
    }
  }
  for (const id of catalog.ids()) {
    if (seen.has(id)) continue;
    catalog.drop(id);
    report.removed++;
  }
  report.problems = catalog.problems.size;
  report.ms = Math.round(performance.now() - started);
  return { catalog, report };
}

/** The catalog the snapshot holds, or an empty one and the reason the snapshot was not used. */
async function fromSnapshot(options: ResolvedSkillStoreOptions, indexOptions: SkillIndexOptions): Promise<{ catalog: Catalog; reason: string }> {
  const empty = (reason: string) => ({ catalog: new Catalog(createSkillIndex(indexOptions)), reason });
  if (!options.persistIndex) return empty('disabled');
  const read = await readSnapshot(options.stateDir, options.root);
  if ('rejected' in read) return empty(read.rejected);
  try {
    const index = await loadSkillIndex(read.index, indexOptions);
    // The signatures and the index describe the same skills, or the snapshot is not trusted.
    if (index.size !== read.signatures.size) return empty('corrupt');
    for (const id of read.signatures.keys()) if (!isValidSlug(id) || !index.has(id)) return empty('corrupt');
    return { catalog: new Catalog(index, read.signatures), reason: 'used' };
  } catch {
    return empty('corrupt');
  }
}
