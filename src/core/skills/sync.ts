/**
 * Applies file changes to the catalog by id: each named file (a path relative to the
 * skills folder) is read again and put, recorded as a problem, or dropped when gone,
 * unless the catalog already holds that exact version (the store's own writes, and the
 * watcher's first scan of files the load has just read: the signature the watcher saw is
 * compared without a system call). Files are read synchronously in slices, yielding
 * between them, under the store mutex.
 */
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { STORE_LOCK, type StoreContext } from './context.js';
import { readSkillFileSync, signatureOf } from './skill-file.js';
import { fileKey, keyString, relativeFile, slugOfKey, structureOfKey } from './skill-key.js';
import type { WatchedChange } from './watch.js';

const SLICE = 256;

/** A change as the watcher reports it, or just a file's name (a pull, a refused push). */
export type FileChange = WatchedChange | string;

/** Re-reads the named files and updates the catalog; resolves to the number of changes applied. */
export function applyFileChanges(ctx: StoreContext, changes: readonly FileChange[]): Promise<number> {
  return ctx.mutex.run(STORE_LOCK, () => applyFileChangesHeld(ctx, changes));
}

/** {@link applyFileChanges} for a caller that already holds the store lock. */
export async function applyFileChangesHeld(ctx: StoreContext, changes: readonly FileChange[]): Promise<number> {
  const { root, log, onFileRead } = ctx.options;
  const { catalog } = ctx;
  let applied = 0;
  for (let i = 0; i < changes.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const change of changes.slice(i, i + SLICE)) {
      const { file, seen } = typeof change === 'string' ? { file: change, seen: undefined } : change;
      const read = fileKey(file);
      if (read.kind === 'other') continue;
      if (read.kind === 'bad-name') {
        const signature = await signatureOf(join(root, file));
        if (signature) catalog.putProblem(file, 'file name is not a valid slug', signature);
        else catalog.problems.delete(file);
        continue;
      }
      const key = keyString(read.key);
      if (seen && seen !== 'gone' && catalog.isCurrent(key, seen)) continue;
      const held = catalog.signatureOf(key) ?? catalog.problems.get(relativeFile(key));
      const outcome = readSkillFileSync(root, read.key, held);
      if (outcome === 'unchanged') continue;
      const slug = slugOfKey(key);
      const scope = structureOfKey(key);
      const structure = scope === undefined ? {} : { structure_id: scope };
      if (outcome.kind === 'skill') {
        onFileRead(key);
        const created = catalog.signatureOf(key) === undefined;
        catalog.put(outcome.skill, outcome.signature);
        ctx.changed({ type: 'upsert', slug, ...structure, created, source: 'watcher' });
      } else if (outcome.kind === 'problem') {
        onFileRead(key);
        log('warn', 'skill file skipped', { file, message: outcome.message });
        catalog.putProblem(file, outcome.message, outcome.signature, outcome.line, outcome.structureId);
        ctx.changed({ type: 'problem', file, message: outcome.message, source: 'watcher' });
      } else if (catalog.drop(key)) {
        ctx.changed({ type: 'remove', slug, ...structure, source: 'watcher' });
      } else continue;
      applied++;
    }
  }
  return applied;
}
