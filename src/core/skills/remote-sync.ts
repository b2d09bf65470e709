/**
 * Keeps a library shared through a skills remote up to date: a pull when another
 * instance announces a commit (a wake-up through the shared store), when those wake-ups
 * may have been lost (the listening connection came back), and every `fetchMs` for
 * pushes made outside org (a person's editor). Pulls never overlap: requests that come
 * while one runs are folded into one more pull after it.
 */
import { errorFields, type Log } from '../util/log.js';
import type { SkillStore } from './store.js';

/** The wake-ups of instances sharing a store, as far as skills need them. */
export interface SkillWakeups {
  on(topic: 'skills', handler: (commit: string) => void): () => void;
  onResync(handler: () => void): () => void;
}

/** Options of {@link syncSkills}. */
export interface SkillSyncOptions {
  /** Period of the fetch for pushes made outside org, in ms. */
  fetchMs: number;
  /** Wake-ups from the other instances (absent on a single instance). */
  listener?: SkillWakeups | undefined;
  log: Log;
  /** Called after each pull with the number of skills it changed (tests, metrics). */
  onPulled?: (changed: number) => void;
}

/** Starts keeping `store` up to its remote; returns the stopper. */
export function syncSkills(store: Pick<SkillStore, 'pull'>, options: SkillSyncOptions): () => void {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const pull = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = store
      .pull()
      .then(
        (changed) => options.onPulled?.(changed),
        (error: unknown) => options.log('warn', 'pulling the skills remote failed (tried again on the next announcement or fetch)', errorFields(error)),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          pull();
        }
      });
  };

  const removers = options.listener ? [options.listener.on('skills', pull), options.listener.onResync(pull)] : [];
  const timer = setInterval(pull, options.fetchMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    for (const remove of removers) remove();
  };
}
