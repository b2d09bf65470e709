/**
 * Loading the skills folder into a catalog, tolerant of bad files and incremental: a
 * usable snapshot of the last run supplies every file whose mtime and size are
 * unchanged, so a restart reads only new and changed files and drops removed ones.
 * Files are read synchronously in slices of 256 with a yield between slices: several
 * times faster than thread-pool reads for thousands of small files. The instance
 * library is the folder's own `*.md` files; each structure's skills are the `*.md` files
 * of its folder, `<structure_id>/` (see `skill-key.ts`).
 */
import { lstatSync, type Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { unlinkIfPresent } from '../storage/index.js';
import { Catalog } from './catalog.js';
import { readSnapshot } from './persist.js';
import {
  createSkillSearchIndex,
  loadSkillSearchIndex,
  type SkillSearchIndexOptions,
} from './search/engine.js';
import { parseInWorkers } from './parse-pool.js';
import type { PrefetchedSignatures } from './prefetch.js';
import { readSkillFileSync, type FileSignature } from './skill-file.js';
import { fileKey, isSkillFileName, isStructureFolderName, keyString, parseKey, relativeFile } from './skill-key.js';
import type { ResolvedSkillStoreOptions } from './options.js';
import { DELETED_DIR, TRASH_LINK_PROBLEM } from './trash.js';

export { isSkillFileName };

/** What a load did, for logs and tests. */
export interface LoadReport {
  /** Files read and parsed. */
  read: number;
  /** Files read and parsed by worker threads (a large load; see the `parseWorkers` option). */
  parsedInWorkers: number;
  /** Files taken from the snapshot without reading. */
  reused: number;
  /** Files compared with the snapshot by a signature taken beforehand on another thread (see `prefetch.ts`), not stat'ed by the load. */
  prefetched: number;
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

/** One entry of a scope folder, by its path relative to the root (`foo.md`, `<structure_id>/foo.md`). */
interface ListedFile {
  relative: string;
  link: boolean;
}

/** Files read synchronously between two yields to the event loop. */
const SLICE = 256;

/** Size and mtime of a regular file or a link (never its target), synchronously; undefined when absent. */
function statSignature(file: string): FileSignature | undefined {
  const info = lstatSync(file, { throwIfNoEntry: false });
  return info?.isFile() || info?.isSymbolicLink() ? { mtimeMs: info.mtimeMs, size: info.size } : undefined;
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
  for (const entry of entries) take(entry, '');
  await sweep(options.root, '', entries);
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
    if (listed.some((inner) => inner.name === DELETED_DIR && inner.isSymbolicLink())) {
      const signature = statSignature(join(dir, DELETED_DIR));
      if (signature) catalog.putProblem(`${entry.name}/${DELETED_DIR}`, TRASH_LINK_PROBLEM, signature);
    }
  }
  return files;
}

/**
 * Builds the catalog of `options.root`. `prefetched` (see `prefetch.ts`), awaited once the
 * snapshot is read, supplies the signatures of files taken meanwhile by a worker thread;
 * a file it does not name is stat'ed here.
 */
export async function loadCatalog(
  options: ResolvedSkillStoreOptions,
  searchOptions: SkillSearchIndexOptions,
  prefetched?: Promise<PrefetchedSignatures | undefined>,
): Promise<{ catalog: Catalog; report: LoadReport }> {
  const started = performance.now();
  const catalog = await fromSnapshot(options, searchOptions);
  const known = await prefetched;
  const snapshot = catalog.reason;
  const entries = await readdir(options.root, { withFileTypes: true });
  if (entries.some((entry) => entry.name === DELETED_DIR && entry.isSymbolicLink())) {
    const signature = statSignature(join(options.root, DELETED_DIR));
    if (signature) catalog.catalog.putProblem(DELETED_DIR, TRASH_LINK_PROBLEM, signature);
  }
  const report: LoadReport = { read: 0, parsedInWorkers: 0, reused: 0, prefetched: 0, removed: 0, problems: 0, removedTemps: [], snapshot, ms: 0 };
  // Links are listed too: each becomes a problem ("is a symbolic link"), never a skill.
  const files = await listSkillFiles(options, entries, report, catalog.catalog);
  const seen = new Set<string>();
  // Skill keys to read, in listing order (the order their documents enter the index).
  const toRead: string[] = [];

  for (let i = 0; i < files.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const { relative, link } of files.slice(i, i + SLICE)) {
      const read = fileKey(relative);
      if (read.kind !== 'skill') {
        if (read.kind === 'bad-name') {
          const signature = statSignature(join(options.root, relative));
          if (signature) catalog.catalog.putProblem(relative, 'file name is not a valid slug', signature);
        }
        continue;
      }
      const key = keyString(read.key);
      seen.add(key);
      const record = catalog.catalog.signatureOf(key);
      if (record && !link) {
        // The prefetch stats the root's own files (the instance library) only.
        const taken = read.key.structureId === undefined ? known?.signature(relative) : undefined;
        if (taken) report.prefetched++;
        // The path is joined only for a file stat'ed here (10,000 joins are not free).
        const signature = taken ?? statSignature(join(options.root, relative));
        if (signature && record.mtimeMs === signature.mtimeMs && record.size === signature.size) {
          report.reused++;
          continue;
        }
      }
      toRead.push(key);
    }
  }

  report.read = toRead.length;
  for (const key of toRead) options.onFileRead(key);
  if (options.parseWorkers > 0 && toRead.length >= options.parseWorkersMinFiles) {
    // A large load (a cold start): worker threads read, parse and analyse while this
    // thread adds their output to the index, slice by slice, in listing order, and parses
    // slices from the end itself rather than wait for the workers' next one.
    const slices = parseInWorkers(options.root, toRead, options.parseWorkers, { share: true });
    for (let next = await slices.next(); ; next = await slices.next()) {
      if (next.done) {
        report.parsedInWorkers = next.value.inWorkers;
        break;
      }
      catalog.catalog.putSlice(next.value);
      // Slices already parsed resolve at once: let requests in between two of them.
      await yieldToEventLoop();
    }
  } else {
    // On this thread, each skill goes straight into the index (the flat batch a worker
    // sends back would only add a conversion here).
    for (let i = 0; i < toRead.length; i += SLICE) {
      if (i > 0) await yieldToEventLoop();
      for (const key of toRead.slice(i, i + SLICE)) {
        const outcome = readSkillFileSync(options.root, parseKey(key));
        if (outcome === 'unchanged' || outcome.kind === 'missing') continue;
        if (outcome.kind === 'skill') catalog.catalog.put(outcome.skill, outcome.signature);
        else catalog.catalog.putProblem(relativeFile(key), outcome.message, outcome.signature, outcome.line, outcome.structureId);
      }
    }
  }

  for (const key of catalog.catalog.keys()) {
    if (seen.has(key)) continue;
    catalog.catalog.drop(key);
    report.removed++;
  }
  // A cold start put every skill in the index's delta: fold it into the compact postings.
  catalog.catalog.index.compact();
  report.problems = catalog.catalog.problems.size;
  report.ms = Math.round(performance.now() - started);
  return { catalog: catalog.catalog, report };
}

async function fromSnapshot(
  options: ResolvedSkillStoreOptions,
  searchOptions: SkillSearchIndexOptions,
): Promise<{ catalog: Catalog; reason: string }> {
  if (!options.persistIndex) return { catalog: new Catalog(createSkillSearchIndex(searchOptions)), reason: 'disabled' };
  const read = await readSnapshot(options.stateDir, options.root);
  if ('rejected' in read) return { catalog: new Catalog(createSkillSearchIndex(searchOptions)), reason: read.rejected };
  try {
    const index = loadSkillSearchIndex(read.snapshot.index, searchOptions);
    const catalog = new Catalog(index);
    const { manifest } = read.snapshot;
    for (const key of manifest.keys) {
      const file = fileKey(relativeFile(key));
      if (!index.has(key) || file.kind !== 'skill' || keyString(file.key) !== key) throw new Error('manifest and index disagree');
    }
    catalog.adopt(manifest);
    if (catalog.count !== index.size) throw new Error('manifest and index disagree');
    return { catalog, reason: 'used' };
  } catch {
    return { catalog: new Catalog(createSkillSearchIndex(searchOptions)), reason: 'corrupt' };
  }
}
