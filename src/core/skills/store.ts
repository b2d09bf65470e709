/**
 * The skill store: the one API over the skill library (API.md §4) that the server
 * routes, the chat's skill lookup, the MCP tools and the CLI use. It loads
 * `<home>/skills` tolerantly (reusing the persisted index for unchanged files), keeps a
 * catalog and a search index in memory, writes atomically, follows edits made in an
 * editor or by git through a watcher, and announces every change.
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
import { filterEntries, type ListFilter } from './entry.js';
import { forkSkill, type ForkInput } from './fork.js';
import { SkillEvents, type SkillChangeListener } from './events.js';
import { loadCatalog, type LoadReport } from './loader.js';
import { whileLoading } from './opening.js';
import { resolveStoreOptions, type SkillStoreOptions } from './options.js';
import { createCommitQueue } from './commits.js';
import { migrateLayout } from './layout.js';
import { problemOwner } from './catalog.js';
import { createIndexSaver } from './saver.js';
import type { SearchExplanation } from './search/explain.js';
import { createSearchLog, type GapQuery, type SkillGap } from './search/gap-log.js';
import { resolveTuning } from './search/tuning.js';
import { createWordNet, type WordNet } from './search/wordnet.js';
import { readSkillFile } from './skill-file.js';
import { isStructureFolderName, keyOf, parseKey, scopeDir, structureOfKey } from './skill-key.js';
import { isValidSlug } from './slug.js';
import { applyFileChanges, applyFileChangesHeld } from './sync.js';
import { listDeletedSkills } from './trash.js';
import type { DeletedSkill, SearchMatch, Skill, SkillListEntry, SkillProblem } from './types.js';
export type { ForkInput } from './fork.js';
import type { SkillWatcher } from './watcher.js';
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
   * Applies the file changes the watcher has reported but not yet handed over (skipping
   * the rest of its debounce), and waits for them and for queued writes to finish, the
   * index snapshot included (start-up, tests, shutdown). Changes the folder watch has not
   * reported yet are not known here: to wait for one edit, wait for its change event
   * ({@link subscribe}).
   */
  settle(options?: SettleOptions): Promise<void>;
  /**
   * Brings the library up to its skills remote (another instance announced a commit, or
   * the periodic fetch): the clone is fetched and moved on, and the skills that changed
   * are read again at once. Resolves to the number of catalog changes; 0 without a remote.
   */
  pull(): Promise<number>;
  /** Stops watching, saves the index, releases files. */
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
 * with its reason, which is how a store never started is closed).
 */
export function openSkillStore(input: SkillStoreOptions, startAfter?: Promise<unknown>): SkillStore {
  // A load that fails or never starts leaves no watch or worker of the prefetch behind.
  const dropPrefetch = (reason: unknown): never => {
    input.prefetch?.close();
    throw reason;
  };
  const load = async () => {
    const store = await createSkillStore(input).catch(dropPrefetch);
    // Ready includes the file changes reported during the load, not the refreshed index
    // snapshot: that save is an accelerator of the next start, made after the store's
    // persist delay (off the path to the first search). A kill that catches it leaves only
    // a temp file, which the next start removes before reading the snapshot.
    await store.settle({ snapshot: false });
    return store;
  };
  // Held until `startAfter` (the server listening): loading a large library reads and
  // stats every file, and on one thread that work would otherwise delay the listen.
  return whileLoading(startAfter ? startAfter.then(load, dropPrefetch) : load());
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
  // The watcher starts before the load (its initial scan of a large folder takes as long
  // as the load itself); bursts it reports meanwhile wait and are applied once loaded.
  const ready: { ctx?: StoreContext } = {};
  const early: string[][] = [];
  let batches = Promise.resolve();
  const onBatch = (names: string[]): void => {
    const ctx = ready.ctx;
    if (!ctx) {
      early.push(names);
      return;
    }
    batches = batches
      .then(() => applyFileChanges(ctx, names))
      .then(
        () => undefined,
        (error: unknown) => options.log('error', 'applying skill file changes failed', { files: names.length, ...errorFields(error) }),
      );
  };
  // The watcher is loaded only by a store that watches (and only when it starts: not
  // before the server listens).
  const watching: Promise<SkillWatcher | undefined> = options.watch
    ? import('./watcher.js').then(({ watchSkills }) =>
        watchSkills({
          root: options.root,
          debounceMs: options.debounceMs,
          onBatch,
          onError: (error) => options.log('error', 'skill watcher error', errorFields(error)),
        }),
      ).catch((error: unknown) => {
        // The library still loads and serves; only edits made outside org go unseen.
        options.log('warn', 'the skills folder cannot be watched: files changed outside org are picked up at the next start', errorFields(error));
        return undefined;
      })
    : Promise.resolve(undefined);
  // Taken once the watcher is in place: from then on a change is the watcher's to report.
  const { prefetch } = options;
  const usePrefetch = prefetch !== undefined && prefetch.root === options.root && !options.remote;
  if (prefetch && !usePrefetch) prefetch.close();
  const prefetched = usePrefetch ? watching.then(() => prefetch.take()) : undefined;
  const [{ catalog, report }, watcher] = await Promise.all([
    loadCatalog(options, { tuning: options.tuning, ...(synonyms ? { synonyms } : {}) }, prefetched),
    watching,
  ]);
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
  const saver = createIndexSaver(options, catalog);
  const ctx: StoreContext = {
    options,
    catalog,
    events,
    mutex: new KeyedMutex(),
    commits: createCommitQueue({ root: options.root, log: options.log }),
    changed(event) {
      // Recent changes sit in the index's delta; fold them in once they add up.
      catalog.index.compact();
      saver.schedule();
      events.emit(event, (error) => options.log('error', 'skill change listener failed', errorFields(error)));
    },
  };
  // After the persist delay: the save (encoding the index, then an atomic write) should not
  // hold up the first searches of a store that has just loaded.
  if (report.read > 0 || report.removed > 0 || report.snapshot !== 'used') saver.schedule();

  ready.ctx = ctx;
  for (const names of early.splice(0)) onBatch(names);

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
    list: (filter = {}) => filterEntries(Array.from(catalog.records.values(), (r) => r.entry), filter, catalog.hiddenFor(filter.structureId)),
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
      const options = { ...searchOptions(query, request), hidden: catalog.hiddenFor(request.structureId) };
      if (!request.record) return catalog.index.search(query, options);
      const found = catalog.index.lookup(query, options);
      const outcome = found.matches.length === 0 ? 'none' : (found.support ?? 0) < weakSupport ? 'weak' : 'matched';
      searchLog.record({ structure_id: request.structureId ?? null, message: query, outcome, chosen: found.matches[0]?.slug ?? null, top: found.top });
      return found.matches;
    },
    explain(query, request = {}) {
      return catalog.index.explain(query, { ...searchOptions(query, request), hidden: catalog.hiddenFor(request.structureId), ...(request.slugs ? { slugs: request.slugs } : {}) });
    },
    // A gap a skill now covers is no gap: each group's latest message is searched again.
    gaps: async (query) =>
      (await searchLog.gaps(query)).filter((gap) => {
        const found = catalog.index.lookup(gap.example, searchOptions(gap.example, query?.structureId ? { structureId: query.structureId } : {}));
        return found.matches.length === 0 || (found.support ?? 0) < weakSupport;
      }),
    count: () => catalog.count,
    subscribe: (listener) => events.subscribe(listener),
    async settle(settleOptions = {}) {
      watcher?.flush();
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
