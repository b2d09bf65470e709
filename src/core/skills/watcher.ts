/**
 * Watches the skills folder and hands over bursts of changed file names. Events are
 * collected for `debounceMs` of quiet (at most 4× that in total, so a long burst such as
 * a 1,000-file `git checkout` is applied in slices), and hidden files, the `.deleted/`
 * area, sub-folders and editor temp files are ignored.
 *
 * One watch on the folder itself (`fs.watch`, inotify / FSEvents / ReadDirectoryChangesW),
 * not one per file: the store needs only the name of what changed, since it stats and
 * reads each named file itself (and a link is read, never followed, and reported as a
 * problem). A per-file watcher (chokidar's) first stats every file and opens a watch on
 * each: at 10,000 skills that is about a second of CPU at every start and ~30 MB, with no
 * event the store would not get from the folder's own watch.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';
import { isSkillFileName } from './loader.js';

/** Options of {@link watchSkills}. */
export interface SkillWatcherOptions {
  root: string;
  debounceMs: number;
  /** Receives the names (`<slug>.md`) changed in one burst. */
  onBatch: (names: string[]) => void;
  onError: (error: unknown) => void;
  /** Hears each skill file name as the folder's watch reports it, before the debounce (lets a caller know a change is pending). */
  onReport?: (name: string) => void;
}

/** A running watcher. */
export interface SkillWatcher {
  /** Hands over the names collected so far now, without waiting out the debounce. */
  flush(): void;
  close(): Promise<void>;
}

/**
 * Starts watching; resolves once the watch is in place (every change made from then on
 * is reported). Throws when the folder cannot be watched.
 */
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
  const schedule = (name: string): void => {
    if (!isSkillFileName(name)) return;
    if (pending.size === 0) firstAt = Date.now();
    pending.add(name);
    options.onReport?.(name);
    if (timer) clearTimeout(timer);
    const waited = Date.now() - firstAt;
    timer = setTimeout(flush, waited >= options.debounceMs * 4 ? 0 : options.debounceMs);
  };

  // Not recursive: skills are the folder's own entries (sub-folders hold a skill's files
  // and `.deleted/`, neither of which is a skill). The names come as the folder holds them.
  const watcher: FSWatcher = watch(options.root, { persistent: true, encoding: 'utf8' }, (_event, name) => {
    // Every platform org runs on names the entry; without a name there is nothing to re-read.
    if (name) schedule(basename(name));
  });
  watcher.on('error', options.onError);

  return {
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      pending.clear();
      watcher.close();
    },
  };
}
