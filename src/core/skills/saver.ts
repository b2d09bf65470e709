/**
 * Saves the index snapshot some time after the last change (a burst of edits causes
 * one write), and on demand at close. Saving failures are logged, never thrown: the
 * snapshot is only a start-up accelerator.
 */
import { errorFields } from '../util/log.js';
import type { Catalog, LazyManifest } from './catalog.js';
import type { ResolvedSkillStoreOptions } from './options.js';
import { INDEX_FORMAT, writeSnapshot } from './persist.js';

/** A delayed, coalescing snapshot writer. */
export interface IndexSaver {
  /** Saves after `delayMs` (default: the store's persist delay) unless called again first. */
  schedule(delayMs?: number): void;
  /** Saves now when anything changed since the last save. */
  flush(): Promise<void>;
}

/** The manifest of the catalog's records, in the order of the index's documents. */
function manifestOf(catalog: Catalog, keys: readonly string[]): LazyManifest {
  const records = catalog.records;
  const mtimes = new Float64Array(keys.length);
  const sizes = new Float64Array(keys.length);
  const entries = keys.map((key, i) => {
    const record = records.get(key);
    if (!record) throw new Error(`the index holds ${key}, the catalog does not`);
    mtimes[i] = record.mtimeMs;
    sizes[i] = record.size;
    return record.entry;
  });
  return { keys, mtimes, sizes, entries: () => JSON.stringify(entries) };
}

/** Creates the saver of one store. */
export function createIndexSaver(options: ResolvedSkillStoreOptions, catalog: Catalog): IndexSaver {
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
        const index = catalog.index.toData();
        await writeSnapshot(options.stateDir, {
          format: INDEX_FORMAT,
          root: options.root,
          saved_at: options.clock().toISOString(),
          manifest: manifestOf(catalog, index.docs.slugs),
          index,
        });
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
      timer = setTimeout(() => {
        save().catch((error: unknown) => options.log('error', 'saving the skill index failed', errorFields(error)));
      }, delayMs);
      timer.unref();
    },
    flush: save,
  };
}
