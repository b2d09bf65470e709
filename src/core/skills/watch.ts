/**
 * Watches the skills folder with chokidar and hands over bursts of changed skill files
 * (paths relative to the folder, `/`-separated), each with what chokidar saw of it: its
 * size and mtime when it was added or changed, or nothing when it went away. Events are
 * collected for `debounceMs` of quiet (at most 4× that in total, so that a long burst
 * such as a 1,000-file `git checkout` is applied in slices).
 *
 * Links are never followed (`followSymlinks: false`: a link is reported as itself, and
 * the store reads it as a problem); only what `accepts` names is watched (skill files,
 * and the folders holding them), so a skill's own files, the deleted area, hidden and
 * temp files never reach a batch. The first scan reports every file present with its
 * signature: the store compares those with what it loaded, which catches what changed
 * between its load and the watch (chokidar's own start walks and stats the folder, so the
 * store starts it once the library has loaded, not before the server listens).
 */
import type { Stats } from 'node:fs';
import { relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { FileSignature } from './skill-file.js';

/** How long a file's size must hold still before its change is reported, in ms. */
const WRITE_SETTLES_MS = 50;
/** How often a changing file's size is checked meanwhile, in ms. */
const WRITE_POLL_MS = 20;

/** A file the folder's watch reported: its signature, or `gone` when it was removed. */
export interface WatchedChange {
  /** Path relative to the skills folder, `/`-separated. */
  file: string;
  seen: FileSignature | 'gone' | undefined;
}

/** Options of {@link watchSkills}. */
export interface SkillWatcherOptions {
  root: string;
  /** Whether a path relative to the folder is watched: a skill file (`dir` false) or a folder holding skill files. */
  accepts(file: string, dir: boolean | undefined): boolean;
  debounceMs: number;
  /** Receives the files changed in one burst. */
  onBatch(changes: WatchedChange[]): void;
  onError(error: unknown): void;
  /** Hears each file as chokidar reports it, before the debounce (lets a caller know a change is pending). */
  onReport?: (file: string) => void;
}

/** A running watcher. */
export interface SkillWatcher {
  /** Resolves once the first scan is done: every file present has been reported. */
  ready: Promise<void>;
  /** Hands over the changes collected so far now, without waiting out the debounce. */
  flush(): void;
  close(): Promise<void>;
}

/** Starts watching; `ready` resolves once chokidar's first scan is over. */
export function watchSkills(options: SkillWatcherOptions): SkillWatcher {
  const pending = new Map<string, WatchedChange['seen']>();
  let timer: NodeJS.Timeout | undefined;
  let firstAt = 0;

  const relativeOf = (path: string): string => {
    const rel = relative(options.root, path);
    return sep === '/' ? rel : rel.split(sep).join('/');
  };
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return;
    const changes = [...pending].map(([file, seen]) => ({ file, seen }));
    pending.clear();
    options.onBatch(changes);
  };
  const report = (path: string, seen: WatchedChange['seen']): void => {
    const file = relativeOf(path);
    if (!options.accepts(file, false)) return;
    if (pending.size === 0) firstAt = Date.now();
    pending.set(file, seen);
    options.onReport?.(file);
    if (timer) clearTimeout(timer);
    const waited = Date.now() - firstAt;
    timer = setTimeout(flush, waited >= options.debounceMs * 4 ? 0 : options.debounceMs);
  };
  const signature = (stats: Stats | undefined): FileSignature | undefined => (stats ? { mtimeMs: stats.mtimeMs, size: stats.size } : undefined);

  const watcher: FSWatcher = watch(options.root, {
    followSymlinks: false,
    alwaysStat: true,
    ignorePermissionErrors: true,
    // A file is reported once its size has held still for a moment, not half-written
    // (chokidar watches a new file only after reporting it: a write finishing before
    // that would never be reported as a change).
    awaitWriteFinish: { stabilityThreshold: WRITE_SETTLES_MS, pollInterval: WRITE_POLL_MS },
    ignored: (path, stats) => {
      const file = relativeOf(path);
      return file !== '' && !options.accepts(file, stats ? stats.isDirectory() : undefined);
    },
  });
  watcher.on('add', (path, stats) => report(path, signature(stats)));
  watcher.on('change', (path, stats) => report(path, signature(stats)));
  watcher.on('unlink', (path) => report(path, 'gone'));
  watcher.on('error', options.onError);
  const ready = new Promise<void>((resolve) => watcher.once('ready', resolve));

  return {
    ready,
    flush,
    async close() {
      if (timer) clearTimeout(timer);
      pending.clear();
      await watcher.close();
    },
  };
}
