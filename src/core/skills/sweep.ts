/**
 * Sweeps of the skills folder after a burst of watcher events. A burst (a checkout, an
 * unpacked archive) can lose an event or two on a busy machine; once the folder is quiet
 * again, every file there is and every file the catalog holds is handed to the sync, which
 * reads only what the catalog does not match (a file it holds costs one stat).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalog } from './catalog.js';
import { isStructureFolderName, relativeFile } from './skill-key.js';
import type { FileChange } from './sync.js';

/**
 * Every file a sweep looks at, relative to the root: the files of the root and of each
 * structure's folder (a folder that is a link is never entered), and every file the
 * catalog holds a skill or a problem for (so one that went away unreported is dropped).
 * Applied with {@link applyFileChanges}, a file whose signature is the catalog's costs a
 * stat and nothing else.
 */
export function sweepList(root: string, catalog: Catalog): string[] {
  const files = new Set<string>();
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!isStructureFolderName(entry.name)) continue;
      for (const inner of readdirSync(join(root, entry.name), { withFileTypes: true })) if (!inner.isDirectory()) files.add(`${entry.name}/${inner.name}`);
    } else files.add(entry.name);
  }
  for (const key of catalog.keys()) files.add(relativeFile(key));
  for (const file of catalog.problems.keys()) files.add(file);
  return [...files];
}

/** Files in one watcher batch from which the folder is swept once it is quiet again. */
export const SWEEP_AFTER = 64;

/** Schedules sweeps: `soon` after a burst (one sweep for many), `now` for what is scheduled, `cancel` at close. */
export interface Sweeper {
  soon(): void;
  now(): void;
  cancel(): void;
}

/** A sweeper of `root` that hands each sweep to `apply`, `quietMs` after the last burst. */
export function createSweeper(root: string, catalog: Catalog, quietMs: number, apply: (changes: readonly FileChange[]) => void, onError: (error: unknown) => void): Sweeper {
  let timer: NodeJS.Timeout | undefined;
  const sweep = (): void => {
    timer = undefined;
    try {
      apply(sweepList(root, catalog));
    } catch (error) {
      onError(error);
    }
  };
  return {
    soon() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(sweep, quietMs);
    },
    now() {
      if (!timer) return;
      clearTimeout(timer);
      sweep();
    },
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
