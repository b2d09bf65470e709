/**
 * The persisted index, `<stateDir>/index/skills.idx`: a binary snapshot (see
 * `search/snapshot.ts`) of the search index with a manifest of every loaded file under a
 * format version: mtimes and sizes as number columns and the list entries as one JSON
 * text, in the order of the index's documents. Written atomically; a file that is
 * missing, damaged, of another version or for another skills folder is ignored and the
 * index is rebuilt. Only the header is parsed at start-up: the postings are decoded on
 * the first search and the list entries when a record is first needed.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isLinkRefused, readFileSafe, removeStaleTemps, writeAtomic } from '../storage/index.js';
import type { LazyManifest } from './catalog.js';
import type { SkillSearchIndexData } from './search/engine.js';
import { decodeSnapshot, encodeSnapshot } from './search/snapshot.js';
import { isPlainObject } from './frontmatter.js';

/**
 * Version of the snapshot layout and of text analysis. Bump it whenever tokenizing,
 * stemming, stop words or indexed fields change: old snapshots are then rebuilt.
 * (6: documents are keyed by skill key, `<slug>` or `<structure_id>/<slug>`.)
 */
export const INDEX_FORMAT = 6;

/** The stored snapshot. */
export interface IndexSnapshot {
  format: number;
  root: string;
  saved_at: string;
  /** One entry per document of `index`, in its order. */
  manifest: LazyManifest;
  index: SkillSearchIndexData;
}

/** Path of the snapshot file. */
export function snapshotPath(stateDir: string): string {
  return join(stateDir, 'index', 'skills.idx');
}

/** The JSON snapshot of earlier versions, removed once a binary one is written. */
const LEGACY_SNAPSHOT = join('index', 'skills.json');

/** Reads a snapshot; the reason it was rejected when it cannot be used. */
export async function readSnapshot(
  stateDir: string,
  root: string,
): Promise<{ snapshot: IndexSnapshot } | { rejected: string }> {
  let buffer: Buffer;
  try {
    // A save killed between its write and its rename leaves a temp file: drop it.
    await removeStaleTemps(snapshotPath(stateDir));
    buffer = await readFileSafe(snapshotPath(stateDir));
  } catch (error) {
    if (isLinkRefused(error)) return { rejected: 'link' };
    return { rejected: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'none' : 'unreadable' };
  }
  let decoded: ReturnType<typeof decodeSnapshot>;
  try {
    decoded = decodeSnapshot(buffer);
  } catch {
    return { rejected: 'corrupt' };
  }
  const meta = decoded.meta;
  if (!isPlainObject(meta) || meta.format !== INDEX_FORMAT) return { rejected: 'old format' };
  if (meta.root !== root) return { rejected: 'other root' };
  if (typeof meta.saved_at !== 'string') return { rejected: 'corrupt' };
  let manifest: LazyManifest;
  try {
    const { extra } = decoded;
    manifest = { keys: decoded.index.docs.slugs, mtimes: extra.numbers('mtimes'), sizes: extra.numbers('sizes'), entries: () => extra.text('entries') };
  } catch {
    return { rejected: 'corrupt' };
  }
  return { snapshot: { format: INDEX_FORMAT, root, saved_at: meta.saved_at, manifest, index: decoded.index } };
}

/** Writes a snapshot atomically (and drops a snapshot of the old JSON format). */
export async function writeSnapshot(stateDir: string, snapshot: IndexSnapshot): Promise<void> {
  const { index, manifest, ...meta } = snapshot;
  if (manifest.keys.length !== index.docs.slugs.length) throw new TypeError('the manifest and the index disagree');
  const extra = { mtimes: manifest.mtimes, sizes: manifest.sizes, entries: manifest.entries() };
  await writeAtomic(snapshotPath(stateDir), encodeSnapshot(meta, index, extra));
  await rm(join(stateDir, LEGACY_SNAPSHOT), { force: true });
}
