/**
 * Applies a burst of file events to the catalog by id: each named file is stat'ed
 * and, unless the catalog already holds that exact version (the store's own writes),
 * read again and put, recorded as a problem, or dropped when gone. Files are read
 * synchronously in slices (yielding between them), then applied under the store mutex.
 */
import { STORE_LOCK, type StoreContext } from './context.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { join } from 'node:path';
import { readSkillFileSync, signatureOf, type FileSignature, type ReadOutcome } from './skill-file.js';
import { fileKey, keyString, slugOfKey, structureOfKey } from './skill-key.js';

const SLICE = 256;

type Pending =
  | { name: string; kind: 'bad-name'; signature: FileSignature | undefined }
  | { name: string; key: string; kind: 'read'; outcome: ReadOutcome };

/**
 * Re-reads the named files (paths relative to the root: `<slug>.md`, `<structure_id>/<slug>.md`)
 * and updates the catalog; resolves to the number applied.
 */
export function applyFileChanges(ctx: StoreContext, names: string[]): Promise<number> {
  return ctx.mutex.run(STORE_LOCK, () => applyFileChangesHeld(ctx, names));
}

/** {@link applyFileChanges} for a caller that already holds the store lock. */
export async function applyFileChangesHeld(ctx: StoreContext, names: string[]): Promise<number> {
  const { root, log, onFileRead } = ctx.options;
  const pending: Pending[] = [];
  for (let i = 0; i < names.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const name of names.slice(i, i + SLICE)) {
      const read = fileKey(name);
      if (read.kind === 'other') continue;
      if (read.kind === 'bad-name') {
        pending.push({ name, kind: 'bad-name', signature: await signatureOf(join(root, name)) });
        continue;
      }
      const key = keyString(read.key);
      const held = ctx.catalog.records.get(key) ?? ctx.catalog.problems.get(name);
      const outcome = readSkillFileSync(root, read.key, held);
      if (outcome === 'unchanged') continue;
      if (outcome.kind !== 'missing') onFileRead(key);
      pending.push({ name, key, kind: 'read', outcome });
    }
  }

  let applied = 0;
  for (const item of pending) {
    if (item.kind === 'bad-name') {
      if (item.signature) ctx.catalog.putProblem(item.name, 'file name is not a valid slug', item.signature);
      else ctx.catalog.problems.delete(item.name);
      continue;
    }
    const { name, key, outcome } = item;
    const slug = slugOfKey(key);
    const scope = structureOfKey(key);
    const structure = scope === undefined ? {} : { structure_id: scope };
    if (outcome.kind === 'skill') {
      if (ctx.catalog.isCurrent(key, outcome.signature) && ctx.catalog.records.has(key)) continue;
      const created = !ctx.catalog.records.has(key);
      ctx.catalog.put(outcome.skill, outcome.signature);
      ctx.changed({ type: 'upsert', slug, ...structure, created, source: 'watcher' });
    } else if (outcome.kind === 'problem') {
      log('warn', 'skill file skipped', { file: name, message: outcome.message });
      ctx.catalog.putProblem(name, outcome.message, outcome.signature, outcome.line, outcome.structureId);
      ctx.changed({ type: 'problem', file: name, message: outcome.message, source: 'watcher' });
    } else if (ctx.catalog.drop(key)) {
      ctx.changed({ type: 'remove', slug, ...structure, source: 'watcher' });
    } else continue;
    applied++;
  }
  return applied;
}
