/**
 * The warm-start snapshot, `<stateDir>/index/skills.jsonl`: the search index as
 * MiniSearch's own JSON, beside the signature (mtime and size) of every file it holds.
 * A start reads it, keeps what the files still match, and reads only files that are
 * new or changed. Three lines: a header (format, skills folder, time, and the CRC-32 and
 * length of the rest), the signatures, then the index (`ScopedSkillIndex.toJSON`, restored
 * with `loadJSONAsync`). Written atomically; a file that is missing, damaged, of another
 * format or for another skills folder is set aside and the index is rebuilt from the files.
 * It is saved some time after the last change (a burst of edits makes one write) and at
 * close; a failed save is logged, never thrown: the snapshot only speeds up a start.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { isLinkRefused, readFileSafe, removeStaleTemps, writeAtomic } from '../storage/index.js';
import { errorFields } from '../util/log.js';
import type { Catalog } from './catalog.js';
import type { ResolvedSkillStoreOptions } from './options.js';
import type { ScopedSkillIndex } from './search/index.js';
import type { FileSignature } from './skill-file.js';

/**
 * Version of the snapshot layout and of text analysis. Bump it whenever tokenizing,
 * stemming, stop words, indexed fields or stored members change: old snapshots are then
 * rebuilt from the files.
 */
export const INDEX_FORMAT = 7;

/** Path of the snapshot file. */
export function snapshotPath(stateDir: string): string {
  return join(stateDir, 'index', 'skills.jsonl');
}

/** Snapshots of earlier versions, removed once one of this format is written. */
const EARLIER = [join('index', 'skills.idx'), join('index', 'skills.json')];

/** A snapshot as read: the index text (still to be restored) and the signatures of its skills, by id. */
export interface Snapshot {
  savedAt: string;
  signatures: Map<string, FileSignature>;
  /** The index, as {@link ScopedSkillIndex.toJSON} wrote it. */
  index: string;
}

interface Header {
  format: number;
  root: string;
  saved_at: string;
  crc32: number;
  length: number;
}

/** Reads the snapshot of `root`; the reason it cannot be used when it cannot. */
export async function readSnapshot(stateDir: string, root: string): Promise<Snapshot | { rejected: string }> {
  let text: string;
  try {
    // A save killed between its write and its rename leaves a temp file: drop it.
    await removeStaleTemps(snapshotPath(stateDir));
    text = await readFileSafe(snapshotPath(stateDir), 'utf8');
  } catch (error) {
    if (isLinkRefused(error)) return { rejected: 'link' };
    return { rejected: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'none' : 'unreadable' };
  }
  const first = text.indexOf('\n');
  let header: Partial<Header>;
  try {
    header = JSON.parse(text.slice(0, first < 0 ? undefined : first)) as Partial<Header>;
  } catch {
    return { rejected: 'corrupt' };
  }
  if (typeof header !== 'object' || header === null || header.format !== INDEX_FORMAT) return { rejected: 'old format' };
  if (header.root !== root) return { rejected: 'other root' };
  const rest = text.slice(first + 1);
  if (typeof header.saved_at !== 'string' || header.length !== rest.length || header.crc32 !== crc32(rest)) return { rejected: 'corrupt' };
  const second = rest.indexOf('\n');
  try {
    const listed = JSON.parse(rest.slice(0, second)) as unknown;
    if (typeof listed !== 'object' || listed === null || Array.isArray(listed)) return { rejected: 'corrupt' };
    const signatures = new Map<string, FileSignature>();
    for (const [id, pair] of Object.entries(listed)) {
      if (!Array.isArray(pair) || typeof pair[0] !== 'number' || typeof pair[1] !== 'number') return { rejected: 'corrupt' };
      signatures.set(id, { mtimeMs: pair[0], size: pair[1] });
    }
    return { savedAt: header.saved_at, signatures, index: rest.slice(second + 1) };
  } catch {
    return { rejected: 'corrupt' };
  }
}

/** Writes the snapshot of an index and the signatures of its skills, atomically. */
export async function writeSnapshot(stateDir: string, root: string, savedAt: string, index: ScopedSkillIndex, signatures: ReadonlyMap<string, FileSignature>): Promise<void> {
  const listed: Record<string, [number, number]> = {};
  for (const [id, signature] of signatures) listed[id] = [signature.mtimeMs, signature.size];
  const rest = `${JSON.stringify(listed)}\n${index.toJSON()}`;
  const header: Header = { format: INDEX_FORMAT, root, saved_at: savedAt, crc32: crc32(rest), length: rest.length };
  await writeAtomic(snapshotPath(stateDir), `${JSON.stringify(header)}\n${rest}`);
  for (const earlier of EARLIER) await rm(join(stateDir, earlier), { force: true });
}

/** A delayed, coalescing snapshot writer. */
export interface SnapshotSaver {
  /** Saves after `delayMs` (default: the store's persist delay) unless called again first. */
  schedule(delayMs?: number): void;
  /** Saves now when anything changed since the last save. */
  flush(): Promise<void>;
}

/** Creates the snapshot saver of one store. */
export function createSnapshotSaver(options: ResolvedSkillStoreOptions, catalog: Catalog): SnapshotSaver {
  let dirty = false;
  let timer: NodeJS.Timeout | undefined;
  let saving: Promise<void> = Promise.resolve();
  const save = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!dirty || !options.persistIndex) return saving;
    dirty = false;
    saving = saving.then(async () => {
      try {
        await writeSnapshot(options.stateDir, options.root, options.clock().toISOString(), catalog.index, catalog.fileSignatures());
      } catch (error) {
        options.log('error', 'saving the skill index failed', errorFields(error));
      }
    });
    return saving;
  };
  return {
    schedule(delayMs = options.persistDelayMs) {
      dirty = true;
      if (!options.persistIndex) return;
      if (timer) clearTimeout(timer);
      // A failed save is logged inside `save`; the promise never rejects.
      timer = setTimeout(() => {
        save().catch(() => undefined);
      }, delayMs);
      timer.unref();
    },
    flush: save,
  };
}
