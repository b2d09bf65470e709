/**
 * Watches the skills folder with chokidar and hands over bursts of changed file names.
 * Events are collected for `debounceMs` of quiet (at most 4× that in total, so a long
 * burst such as a 1,000-file `git checkout` is applied in slices), and hidden files,
 * the `.deleted/` area, sub-folders and editor temp files are ignored.
 */
import { basename } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import { isSkillFileName } from './loader.js';

/** Options of {@link watchSkills}. */
export interface SkillWatcherOptions {
  root: string;
  debounceMs: number;
  /** Receives the names (`<slug>.md`) changed in one burst. */
  onBatch: (names: string[]) => void;
  onError: (error: unknown) => void;
  /** Hears each skill file name as chokidar reports it, before the debounce (lets a caller know a change is pending). */
  onReport?: (name: string) => void;
}

/** A running watcher. */
export interface SkillWatcher {
  /** Hands over the names collected so far now, without waiting out the debounce. */
  flush(): void;
  close(): Promise<void>;
}

/** Starts watching; resolves once chokidar has scanned the folder. */
export async function watchSkills(options: SkillWatcherOptions): Promise<SkillWatcher> {
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstAt = 0;

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const names = [...pending];
    pending.clear();
    if (names.length > 0) options.onBatch(names);
  };
  const schedule = (path: string): void => {
    const name = basename(path);
    if (!isSkillFileName(name)) return;
    if (pending.size === 0) firstAt = Date.now();
    pending.add(name);
    options.onReport?.(name);
    if (timer) clearTimeout(timer);
    const waited = Date.now() - firstAt;
    timer = setTimeout(flush, waited >= options.debounceMs * 4 ? 0 : options.debounceMs);
  };

  const watcher: FSWatcher = watch(options.root, {
    ignoreInitial: true,
    depth: 0,
    ignored: (path, stats) => {
      if (path === options.root) return false;
      const name = basename(path);
      if (name.startsWith('.')) return true;
      // Links pass, so that each is read (never followed) and reported as a problem.
      if (stats) return !(stats.isFile() || stats.isSymbolicLink()) || !isSkillFileName(name);
      return !name.endsWith('.md');
    },
  });
  watcher.on('add', schedule).on('change', schedule).on('unlink', schedule);
  watcher.on('error', options.onError);
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  return {
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      pending.clear();
      await watcher.close();
    },
  };
}
