/**
 * The persisted index, `<stateDir>/index/skills.json`: the MiniSearch snapshot, the
 * term statistics and a manifest of every loaded file (mtime, size, list entry), under
 * a format version. Written atomically; a file that is missing, corrupt, of another
 * version or for another skills folder is ignored and the index is rebuilt.
 */
import { join } from 'node:path';
import { isLinkRefused, readFileSafe, removeStaleTemps, writeAtomic } from '../storage/index.js';
import type { CatalogRecord } from './catalog.js';
import type { SkillSearchIndexJSON } from './search/engine.js';
import { isPlainObject } from './frontmatter.js';

/**
 * Version of the snapshot layout and of text analysis. Bump it whenever tokenizing,
 * stemming, stop words or indexed fields change: old snapshots are then rebuilt.
 */
export const INDEX_FORMAT = 3;

/** The stored snapshot. */
export interface IndexSnapshot {
  format: number;
  root: string;
  saved_at: string;
  records: Record<string, CatalogRecord>;
  index: SkillSearchIndexJSON;
}

/** Path of the snapshot file. */
export function snapshotPath(stateDir: string): string {
  return join(stateDir, 'index', 'skills.json');
}

/** Reads a snapshot; the reason it was rejected when it cannot be used. */
export async function readSnapshot(
  stateDir: string,
  root: string,
): Promise<{ snapshot: IndexSnapshot } | { rejected: string }> {
  let text: string;
  try {
    // A save killed between its write and its rename leaves a temp file: drop it.
    await removeStaleTemps(snapshotPath(stateDir));
    text = await readFileSafe(snapshotPath(stateDir), 'utf8');
  } catch (error) {
    if (isLinkRefused(error)) return { rejected: 'link' };
    return { rejected: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'none' : 'unreadable' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { rejected: 'corrupt' };
  }
  if (!isPlainObject(value) || value.format !== INDEX_FORMAT) return { rejected: 'old format' };
  if (value.root !== root) return { rejected: 'other root' };
  if (!isPlainObject(value.records) || !isPlainObject(value.index)) return { rejected: 'corrupt' };
  return { snapshot: value as unknown as IndexSnapshot };
}

/** Writes a snapshot atomically. */
export async function writeSnapshot(stateDir: string, snapshot: IndexSnapshot): Promise<void> {
  await writeAtomic(snapshotPath(stateDir), JSON.stringify(snapshot));
}
