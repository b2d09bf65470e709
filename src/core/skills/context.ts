/**
 * The shared state of one skill store, handed to the files that implement its parts
 * (writes, watcher batches, persistence) so each stays small.
 */
import type { Catalog } from './catalog.js';
import type { CommitQueue } from './commits.js';
import type { SkillChangeEvent, SkillEvents } from './events.js';
import type { ResolvedSkillStoreOptions } from './options.js';
import type { KeyedMutex } from '../storage/index.js';

/** Everything the parts of a store share. */
export interface StoreContext {
  options: ResolvedSkillStoreOptions;
  catalog: Catalog;
  events: SkillEvents;
  /** Serialises writes and watcher batches (key `skills`). */
  mutex: KeyedMutex;
  /** Git commits of writes (used only with the `commit` option). */
  commits: CommitQueue;
  /** Announces a change: notifies listeners and schedules saving the index. */
  changed(event: SkillChangeEvent): void;
}

/** The mutex key all catalog mutations run under. */
export const STORE_LOCK = 'skills';
