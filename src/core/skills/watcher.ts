/**
 * Watches the skills folder and the folder of each structure's skills, and hands over
 * bursts of changed file names (relative to the skills folder: `foo.md`,
 * `<structure_id>/foo.md`). Events are collected for `debounceMs` of quiet (at most 4×
 * that in total, so a long burst such as a 1,000-file `git checkout` is applied in
 * slices), and hidden files, the `.deleted/` areas, other sub-folders and editor temp
 * files are ignored. A structure's folder that appears later is watched from then on
 * (the files already in it are reported once).
 *
 * One watch on the folder itself (`fs.watch`, inotify / FSEvents / ReadDirectoryChangesW),
 * not one per file: the store needs only the name of what changed, since it stats and
 * reads each named file itself (and a link is read, never followed, and reported as a
 * problem). A per-file watcher (chokidar's) first stats every file and opens a watch on
 * each: at 10,000 skills that is about a second of CPU at every start and ~30 MB, with no
 * event the store would not get from the folder's own watch.
 */
import { lstatSync, readdirSync, watch, type FSWatcher } from 'node:fs';
import { basename, join } from 'node:path';
import { isSkillFileName, isStructureFolderName } from './skill-key.js';

/** Options of {@link watchSkills}. */
export interface SkillWatcherOptions {
  root: string;
  debounceMs: number;
  /** Receives the names (`<slug>.md`, `<structure_id>/<slug>.md`) changed in one burst. */
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
  const schedule = (name: string, prefix: string): void => {
    if (!isSkillFileName(name)) return;
    if (pending.size === 0) firstAt = Date.now();
    const relative = prefix + name;
    pending.add(relative);
    options.onReport?.(relative);
    if (timer) clearTimeout(timer);
    const waited = Date.now() - firstAt;
    timer = setTimeout(flush, waited >= options.debounceMs * 4 ? 0 : options.debounceMs);
  };

  // One watch per folder, not recursive: skills are the entries of the root and of the
  // structures' folders (other sub-folders hold a skill's files and `.deleted/`, neither of
  // which is a skill). The names come as each folder holds them.
  const structures = new Map<string, FSWatcher>();
  let closed = false;
  const watchStructure = (id: string, report: boolean): void => {
    if (closed) return;
    // The root reports a structure's folder when it is made, removed or replaced: watch it afresh.
    structures.get(id)?.close();
    structures.delete(id);
    const dir = join(options.root, id);
    // Never a link: a structure's folder is a real folder of the skills folder.
    if (!lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
    let folder: FSWatcher;
    try {
      folder = watch(dir, { persistent: true, encoding: 'utf8' }, (_event, name) => {
        if (name) schedule(basename(name), `${id}/`);
      });
    } catch {
      return;
    }
    folder.on('error', () => {
      // The folder went away (or cannot be watched any more); a new one is watched when it appears.
      folder.close();
      if (structures.get(id) === folder) structures.delete(id);
    });
    structures.set(id, folder);
    // Files written before the watch was in place (a folder made with its files at once).
    if (report) {
      try {
        for (const name of readdirSync(dir)) schedule(name, `${id}/`);
      } catch {
        // Gone again already: its removal is reported by the root's watch.
      }
    }
  };

  const watcher: FSWatcher = watch(options.root, { persistent: true, encoding: 'utf8' }, (_event, name) => {
    // Every platform org runs on names the entry; without a name there is nothing to re-read.
    if (!name) return;
    const entry = basename(name);
    if (isStructureFolderName(entry)) watchStructure(entry, true);
    else schedule(entry, '');
  });
  watcher.on('error', options.onError);
  for (const name of readdirSync(options.root)) if (isStructureFolderName(name)) watchStructure(name, false);

  return {
    flush,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      pending.clear();
      watcher.close();
      for (const folder of structures.values()) folder.close();
      structures.clear();
    },
  };
}
