/**
 * Applies a burst of file events to the catalog by id: each named file is stat'ed
 * and, unless the catalog already holds that exact version (the store's own writes),
 * read again and put, recorded as a problem, or dropped when gone. Files are read
 * synchronously in slices (yielding between them), then applied under the store mutex.
 */
import { STORE_LOCK, type StoreContext } from './context.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { readSkillFileSync, signatureOf, skillPath, type FileSignature, type ReadOutcome } from './skill-file.js';
import { isValidSlug } from './slug.js';

const SLICE = 256;

type Pending =
  | { name: string; kind: 'bad-name'; signature: FileSignature | undefined }
  | { name: string; slug: string; kind: 'read'; outcome: ReadOutcome };

/** Re-reads the named files (`<slug>.md`) and updates the catalog; resolves to the number applied. */
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
      const slug = name.slice(0, -3);
      if (!isValidSlug(slug)) {
        pending.push({ name, kind: 'bad-name', signature: await signatureOf(skillPath(root, slug)) });
        continue;
      }
      const held = ctx.catalog.records.get(slug) ?? ctx.catalog.problems.get(name);
      const outcome = readSkillFileSync(root, slug, held);
      if (outcome === 'unchanged') continue;
      if (outcome.kind !== 'missing') onFileRead(slug);
      pending.push({ name, slug, kind: 'read', outcome });
    }
  }

  let applied = 0;
  for (const item of pending) {
    if (item.kind === 'bad-name') {
      if (item.signature) ctx.catalog.putProblem(item.name, 'file name is not a valid slug', item.signature);
      else ctx.catalog.problems.delete(item.name);
      continue;
    }
    const { name, slug, outcome } = item;
    if (outcome.kind === 'skill') {
      if (ctx.catalog.isCurrent(slug, outcome.signature) && ctx.catalog.records.has(slug)) continue;
      const created = !ctx.catalog.records.has(slug);
      ctx.catalog.put(outcome.skill, outcome.signature);
      ctx.changed({ type: 'upsert', slug, created, source: 'watcher' });
    } else if (outcome.kind === 'problem') {
      log('warn', 'skill file skipped', { file: name, message: outcome.message });
      ctx.catalog.putProblem(name, outcome.message, outcome.signature, outcome.line);
      ctx.changed({ type: 'problem', file: name, message: outcome.message, source: 'watcher' });
    } else if (ctx.catalog.drop(slug)) {
      ctx.changed({ type: 'remove', slug, source: 'watcher' });
    } else continue;
    applied++;
  }
  return applied;
}
