/**
 * The skill store: the one API over the skill library (API.md §4) that the server
 * routes, the chat's skill lookup, the MCP tools and the CLI use. It loads
 * `<home>/skills` tolerantly (from the index snapshot for unchanged files), keeps a
 * catalog and its MiniSearch index in memory, writes atomically, follows edits made in an
 * editor or by git through a chokidar watcher started once the library has loaded, and
 * announces every change.
 *
 * @example
 * const store = await createSkillStore({ root: join(home, 'skills'), stateDir: join(home, '.org'), watch: true });
 * const { skill, created } = await store.upsert({ slug: 'chase-invoices', frontmatter, body, actor: 'alice@example.com' });
 * store.search('customers are late paying', { structureId });
 * await store.close();
 */
import { invalid } from '../errors.js';
import { KeyedMutex, guardRoot } from '../storage/index.js';
import { errorFields } from '../util/log.js';
import { STORE_LOCK, type StoreContext } from './context.js';
import type { ListFilter } from './entry.js';
import { forkSkill, type ForkInput } from './fork.js';
import { SkillEvents, type SkillChangeListener } from './events.js';
import { loadCatalog, type LoadReport } from './load.js';
import { whileLoading } from './opening.js';
import { resolveStoreOptions, type SkillStoreOptions } from './options.js';
import { createCommitQueue } from './commits.js';
import { migrateLayout } from './layout.js';
import { problemOwner } from './catalog.js';
import { createSnapshotSaver } from './snapshot.js';
import { createSearchLog, type GapQuery, type SkillGap } from './search/gap-log.js';
import { createWordNet, resolveTuning, type SearchExplanation, type WordNet } from './search/index.js';
import { readSkillFile } from './skill-file.js';
import { fileKey, isStructureFolderName, keyOf, parseKey, scopeDir, structureOfKey } from './skill-key.js';
import { isVisible } from './visibility.js';
import { isValidSlug } from './slug.js';
import { applyFileChanges, applyFileChangesHeld, type FileChange } from './sync.js';
import { createSweeper, SWEEP_AFTER } from './sweep.js';
import { listDeletedSkills } from './trash.js';
import type { DeletedSkill, SearchMatch, Skill, SkillListEntry, SkillProblem } from './types.js';
export type { ForkInput } from './fork.js';
import type { SkillWatcher, WatchedChange } from './watch.js';
import { listResources, readResource } from './resources.js';
import { removeSkill, replaceSkillFiles, restoreSkill, upsertSkill, type ScopeOptions, type UpsertInput, type UpsertResult } from './writes.js';

/** Options of {@link SkillStore.search}. */
export interface SkillSearchRequest {
  /** The structure asking: its own skills and the instance skills it has not replaced match; another structure's never. */
  structureId?: string;
  /** 1 to 50, default 5. */
  limit?: number;
  /** Record the search in the gap log (the chat's skill lookup does; direct searches do not). */
  record?: boolean;
}

/** Options of {@link SkillStore.explain}. */
export interface SkillExplainRequest extends SkillSearchRequest {
  /** Skills to explain whatever their rank or status. */
  slugs?: string[];
}

/** Whose load problems {@link SkillStore.problems} lists. */
export interface ProblemScope {
  /** A structure: its own folder's problems and the instance library's. */
  structureId?: string;
  /** Every problem of every structure (the instance administrator). */
  all?: boolean;
}

/** Options of {@link SkillStore.settle}. */
export interface SettleOptions {
  /** Wait for a pending index snapshot save too (default true). */
  snapshot?: boolean;
}

/** Errors of a folder that cannot be watched (out of watches or descriptors, no permission). */
const WATCH_REFUSED = new Set(['ENOSPC', 'EMFILE', 'ENFILE', 'EPERM', 'EACCES']);
const UNWATCHED = 'the skills folder cannot be watched: files changed outside org are picked up at the next start';

/**
 * What the watcher follows, by path relative to the skills folder: the root's skill files
 * and the folders of structures' skills with theirs (`dir` is true for a folder, undefined
 * when not known yet). A skill's own files, the deleted areas, hidden and temp files never reach it.
 */
function watchedPath(file: string, dir: boolean | undefined): boolean {
  if (dir !== false && isStructureFolderName(file)) return true;
  return dir !== true && fileKey(file).kind !== 'other';
}

/** Longest search query accepted (API.md §4). */
export const MAX_QUERY_LENGTH = 1000;
/** Most matches a search may ask for. */
export const MAX_SEARCH_LIMIT = 50;

/** The skill library. Create it with {@link createSkillStore}. */
export interface SkillStore {
  /** What the initial load did (files read, reused from the snapshot, problems, time). */
  readonly loadReport: LoadReport;
  /** Resolves once the library is loaded (rejects when the load failed); see {@link openSkillStore}. */
  ready(): Promise<void>;
  /** True once the library is loaded. */
  isReady(): boolean;
  /**
   * Live skills a structure sees (its own, and the instance skills it has not replaced;
   * without a structure, the instance skills), filtered, sorted by slug (default
   * statuses complete, draft).
   */
  list(filter?: ListFilter): SkillListEntry[];
  /**
   * One skill of any status, read from its file, as `structureId` reaches it by slug: its
   * own skill, else the instance skill (without a structure, the instance skill only);
   * undefined when absent or unparsable.
   */
  get(slug: string, structureId?: string): Promise<Skill | undefined>;
  /** The structures that have a live skill of their own with this slug (for a caller who named no structure, filtered by its memberships). */
  structuresWith(slug: string): string[];
  /** Creates or updates a skill of a structure, or of the instance library (validation errors → 400 `OrgError` with field errors). */
  upsert(input: UpsertInput): Promise<UpsertResult>;
  /** Copies an instance skill into a structure (API.md §10 fork). */
  fork(input: ForkInput): Promise<Skill>;
  /** The files kept beside a skill as {@link get} resolves it (path → bytes, sorted by path); empty when none. */
  files(slug: string, structureId?: string): Promise<Map<string, Uint8Array>>;
  /** Replaces the files kept beside a live skill of the scope (404 when absent). */
  putFiles(slug: string, files: ReadonlyMap<string, Uint8Array>, scope?: ScopeOptions): Promise<void>;
  /** Moves a skill of the scope to its `.deleted/` (404 when absent). */
  remove(slug: string, scope?: ScopeOptions): Promise<void>;
  /** Deleted skills a structure may see, newest first: its own and the instance library's. */
  listDeleted(structureId?: string): Promise<DeletedSkill[]>;
  /** Restores the newest deleted version in the scope (409 when live, 404 when none). */
  restore(slug: string, scope?: ScopeOptions): Promise<Skill>;
  /** Files that did not load, with the reason: the instance library's, and a structure's own or everyone's as asked. */
  problems(scope?: ProblemScope): SkillProblem[];
  /** Skill files written through the API whose git commit (`commit` option) has not succeeded yet. */
  uncommittedFiles(): number;
  /** Ranked matches among complete skills visible to the structure; [] when nothing is relevant. */
  search(query: string, request?: SkillSearchRequest): SearchMatch[];
  /** The same search with a breakdown of every candidate considered, cut ones included. */
  explain(query: string, request?: SkillExplainRequest): SearchExplanation;
  /** Recent chat searches that matched nothing or weakly, grouped, most frequent first. */
  gaps(query?: GapQuery): Promise<SkillGap[]>;
  /** Number of live skills (any status, any structure). */
  count(): number;
  /** Adds a change listener; returns its remover. */
  subscribe(listener: SkillChangeListener): () => void;
  /**
   * Waits for the watcher's first scan, applies the file changes it has reported but not
   * yet handed over (skipping the rest of its debounce), and waits for them and for queued
   * writes to finish, the index snapshot included (start-up, tests, shutdown). Changes the
   * folder watch has not reported yet are not known here: to wait for one edit, wait for
   * its change event ({@link subscribe}).
   */
  settle(options?: SettleOptions): Promise<void>;
  /**
   * Brings the library up to its skills remote (another instance announced a commit, or
   * the periodic fetch): the clone is fetched and moved on, and the skills that changed
   * are read again at once. Resolves to the number of catalog changes; 0 without a remote.
   */
  pull(): Promise<number>;
  /** Stops watching, saves the index snapshot, releases files. */
  close(): Promise<void>;
}

/** Validates a search request (400 `OrgError` with field errors) and returns the index options (without the structure's hidden slugs). */
function searchOptions(query: unknown, request: SkillSearchRequest): { limit: number; structureId?: string } {
  const errors = [];
  if (typeof query !== 'string' || query.length < 1 || query.length > MAX_QUERY_LENGTH) {
    errors.push({ path: 'query', message: `must be 1 to ${MAX_QUERY_LENGTH} characters` });
  }
  const limit = request.limit ?? 5;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_SEARCH_LIMIT}` });
  }
  if (errors.length > 0) throw invalid('invalid search', errors);
  return { limit, ...(request.structureId ? { structureId: request.structureId } : {}) };
}

/**
 * Opens the skills folder without waiting for it to load: the store answers at once and
 * its `ready()` resolves when the library is loaded (see {@link whileLoading}). With
 * `startAfter`, the load begins once that promise resolves (a rejection fails the store
 * with its reason, which is how a store never started is closed): `org serve` starts it
 * once it listens, so that reading a large library never delays the listen.
 */
export function openSkillStore(input: SkillStoreOptions, startAfter?: Promise<unknown>): SkillStore {
  const load = () => createSkillStore(input);
  return whileLoading(startAfter ? startAfter.then(load) : load());
}

/** Loads the skills folder and returns a ready store (watching when `watch` is set). */
export async function createSkillStore(input: SkillStoreOptions): Promise<SkillStore> {
  const options = resolveStoreOptions(input);
  // Created when missing; nothing below either is ever reached through a symbolic link.
  await guardRoot(options.root);
  await guardRoot(options.stateDir);
  // A shared library: the folder becomes (or is checked to be) a clone of the remote first.
  await options.remote?.prepare();
  // A home of an earlier version: its structures' skills move into their folders (once).
  await migrateLayout({ root: options.root, stateDir: options.stateDir, log: options.log, commit: options.commit, ...(options.remote ? { remote: options.remote } : {}) });
  // WordNet is opened on the first search with a word the library does not have.
  let wordnet: WordNet | undefined;
  const synonyms = options.synonyms === false ? undefined : (options.synonyms ?? (() => (wordnet = createWordNet())));
  const weakSupport = resolveTuning(options.tuning).weakSupport;
  const searchLog = createSearchLog({
    stateDir: options.stateDir,
    clock: options.clock,
    onError: (error) => options.log('warn', 'recording a chat search failed', errorFields(error)),
  });
  const { catalog, report } = await loadCatalog(options, { tuning: options.tuning, ...(synonyms ? { synonyms } : {}) });
  options.log('info', 'skills loaded', { ...report, removedTemps: report.removedTemps.length, skills: catalog.count });
  if (report.removedTemps.length > 0) {
    // Each one is a write a crash cut short (see `sweepTemps`).
    const files = report.removedTemps.map((name) => `skills/${name}`);
    options.log('warn', 'removed temp files of writes cut short by an earlier stop', { files: files.slice(0, 20), count: files.length });
  }
  // At info: `org serve` names each skipped file in its start-up lines (a file broken while
  // the server runs is a warning of the watcher).
  for (const problem of catalog.problems.values()) {
    options.log('info', 'skill file skipped', { file: problem.file, message: problem.message });
  }

  const events = new SkillEvents();
  if (options.onChange) events.subscribe(options.onChange);
  const saver = createSnapshotSaver(options, catalog);
  const ctx: StoreContext = {
    options,
    catalog,
    events,
    mutex: new KeyedMutex(),
    commits: createCommitQueue({ root: options.root, log: options.log }),
    changed(event) {
      saver.schedule();
      events.emit(event, (error) => options.log('error', 'skill change listener failed', errorFields(error)));
    },
  };
  // After the persist delay: the save (MiniSearch's JSON, then an atomic write) should not
  // hold up the first searches of a store that has just loaded.
  if (report.read > 0 || report.removed > 0 || report.snapshot !== 'used') saver.schedule();

  // The watcher starts once the library is loaded (chokidar's first scan stats every
  // file and watches each): that scan reports every file with its signature, so a file
  // changed while the library loaded is read again, and the others cost no read.
  let batches = Promise.resolve();
  const apply = (changes: readonly FileChange[]): void => {
    batches = batches
      .then(() => applyFileChanges(ctx, changes))
      .then(
        () => undefined,
        (error: unknown) => options.log('error', 'applying skill file changes failed', { files: changes.length, ...errorFields(error) }),
      );
  };
  const sweeper = createSweeper(options.root, catalog, options.debounceMs * 4, apply, (error) => options.log('error', 'sweeping the skills folder failed', errorFields(error)));
  const onBatch = (changes: WatchedChange[]): void => {
    apply(changes);
    if (changes.length >= SWEEP_AFTER) sweeper.soon();
  };
  let watcher: SkillWatcher | undefined;
  if (options.watch) {
    try {
      const { watchSkills } = await import('./watch.js');
      watcher = watchSkills({
        root: options.root,
        accepts: watchedPath,
        debounceMs: options.debounceMs,
        onBatch,
        onError: (error) => {
          // Out of watches or not allowed to watch: the library still serves; only edits made outside org go unseen.
          if (WATCH_REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) options.log('warn', UNWATCHED, errorFields(error));
          else options.log('error', 'skill watcher error', errorFields(error));
        },
      });
    } catch (error) {
      options.log('warn', UNWATCHED, errorFields(error));
    }
  }

  /** Whether a structure sees a skill: its own, and the instance skills it has not replaced (see `visibility.ts`). */
  const visibleTo = (structureId: string | undefined): ((entry: SkillListEntry) => boolean) => {
    const hidden = catalog.hiddenFor(structureId);
    return (entry) => isVisible(entry, structureId, hidden);
  };

  /** A skill as `structureId` reaches it by slug: its own, else the instance skill. */
  const resolveSkill = async (slug: string, structureId: string | undefined): Promise<Skill | undefined> => {
    if (!isValidSlug(slug)) return undefined;
    if (structureId !== undefined && isStructureFolderName(structureId)) {
      const own = await readSkillFile(options.root, parseKey(keyOf(slug, structureId)));
      if (own.kind === 'skill') return own.skill;
      if (own.kind === 'problem') return undefined;
    }
    const outcome = await readSkillFile(options.root, { slug });
    return outcome.kind === 'skill' ? outcome.skill : undefined;
  };

  return {
    loadReport: report,
    ready: () => Promise.resolve(),
    isReady: () => true,
    list: (filter) => catalog.list(filter),
    get: (slug, structureId) => resolveSkill(slug, structureId),
    structuresWith(slug) {
      if (!isValidSlug(slug)) return [];
      return catalog
        .keys()
        .filter((key) => key.endsWith(`/${slug}`))
        .map((key) => structureOfKey(key) as string)
        .filter(isStructureFolderName)
        .sort();
    },
    upsert: (upsertInput) => upsertSkill(ctx, upsertInput),
    fork: (forkInput) => forkSkill(ctx, forkInput),
    async files(slug, structureId) {
      const out = new Map<string, Uint8Array>();
      const skill = await resolveSkill(slug, structureId);
      if (!skill) return out;
      const dir = scopeDir(options.root, skill.frontmatter.structure_id);
      for (const path of await listResources(dir, slug)) {
        const data = await readResource(dir, slug, path);
        if (data) out.set(path, data);
      }
      return out;
    },
    putFiles: (slug, files, scope) => replaceSkillFiles(ctx, slug, files, scope),
    remove: (slug, scope) => removeSkill(ctx, slug, scope),
    listDeleted: (structureId) => listDeletedSkills(options.root, structureId),
    restore: (slug, scope) => restoreSkill(ctx, slug, scope),
    problems: (scope = {}) =>
      [
        ...[...catalog.problems.values()].map(({ file, message, line, structure_id }) => ({ problem: { file, message, ...(line ? { line } : {}) }, owner: structure_id })),
        ...ctx.commits.problems().map((problem) => ({ problem, owner: problemOwner(problem.file) })),
      ]
        // A problem concerns one structure (its folder's files) or the instance library: a
        // structure sees its own and the instance library's, never another's.
        .filter(({ owner }) => scope.all === true || owner === undefined || owner === scope.structureId)
        .map(({ problem }) => problem)
        .sort((a, b) => (a.file < b.file ? -1 : 1)),
    uncommittedFiles: () => ctx.commits.pendingFiles(),
    search(query, request = {}) {
      const options = { ...searchOptions(query, request), visible: visibleTo(request.structureId) };
      if (!request.record) return catalog.index.search(query, options);
      const found = catalog.index.lookup(query, options);
      const outcome = found.matches.length === 0 ? 'none' : (found.support ?? 0) < weakSupport ? 'weak' : 'matched';
      searchLog.record({ structure_id: request.structureId ?? null, message: query, outcome, chosen: found.matches[0]?.slug ?? null, top: found.top });
      return found.matches;
    },
    explain(query, request = {}) {
      return catalog.index.explain(query, { ...searchOptions(query, request), visible: visibleTo(request.structureId), ...(request.slugs ? { slugs: request.slugs } : {}) });
    },
    // A gap a skill now covers is no gap: each group's latest message is searched again.
    gaps: async (query) =>
      (await searchLog.gaps(query)).filter((gap) => {
        const found = catalog.index.lookup(gap.example, { ...searchOptions(gap.example, query?.structureId ? { structureId: query.structureId } : {}), visible: visibleTo(query?.structureId) });
        return found.matches.length === 0 || (found.support ?? 0) < weakSupport;
      }),
    count: () => catalog.count,
    subscribe: (listener) => events.subscribe(listener),
    async settle(settleOptions = {}) {
      await watcher?.ready;
      watcher?.flush();
      sweeper.now();
      await batches;
      await ctx.mutex.idle();
      // The index snapshot is a queued write too: once settled, none is left in flight.
      if (settleOptions.snapshot !== false) await saver.flush();
    },
    async pull() {
      const remote = options.remote;
      if (!remote) return 0;
      // The clone moves under the store lock, so no write is half-made meanwhile.
      return ctx.mutex.run(STORE_LOCK, async () => {
        const { changed } = await remote.pull();
        return changed.length > 0 ? applyFileChangesHeld(ctx, changed) : 0;
      });
    },
    async close() {
      sweeper.cancel();
      await watcher?.close();
      await searchLog.flush();
      await batches;
      await ctx.mutex.idle();
      await saver.flush();
      // A last try of commits still pending; whatever fails stays uncommitted on disk.
      await ctx.commits.retry();
      ctx.commits.close();
      wordnet?.close();
    },
  };
}
