/**
 * The skill search index: stems-only postings in typed arrays (a compacted base plus a
 * small delta of recent changes), BM25F ranking with field boosts, prefix and typo
 * matching through a lexicon of the words as written, WordNet synonyms only for words
 * that match nothing, trigger and name bonuses, deprecated skills standing for their
 * successors, and a no-match decision made from the candidates' scores. Documents are
 * added, replaced and removed by slug; nothing is ever rebuilt from the text.
 */
import type { SearchMatch } from '../types.js';
import type { Hidden } from '../visibility.js';
import type { AnalysedBatch } from './batch.js';
import { analyseDocument, documentFacts, type SearchDocument } from './document.js';
import { DocTable, STATUS, type DocTableData } from './docs.js';
import { explainSearch, type SearchExplanation } from './explain.js';
import { baseTerm, DeltaPostings, emptyBase, mergePostings, type BasePostings } from './postings.js';
import { planQuery, type PlanSource, type QueryPlan } from './query.js';
import { rankCandidates, type RankedCandidate } from './rank.js';
import { reasonOf } from './reason.js';
import { ScopeStats } from './scope-stats.js';
import { score, ScoreScratch, type ScoreResult, type ScoreSource } from './scorer.js';
import { resolveTuning, SEARCH_FIELDS, type SearchTuning } from './tuning.js';
import type { SynonymSource } from './wordnet.js';

/** Options of {@link createSkillSearchIndex}. */
export interface SkillSearchIndexOptions {
  /** Ranking knobs; defaults in `tuning.ts`. */
  tuning?: Partial<SearchTuning>;
  /**
   * Synonyms for query words that match nothing, or a function creating the source on
   * first use (so WordNet is loaded only when a search needs it); omit for none.
   */
  synonyms?: SynonymSource | (() => SynonymSource | undefined);
}

export interface SkillSearchOptions {
  /** Structure asking: its own skills and the instance skills it sees; other structures' skills are never reached. */
  structureId?: string;
  /** Instance slugs the structure replaced with its own skills (never candidates; see `visibility.ts`). */
  hidden?: Hidden;
  /** Most matches returned; default 5. */
  limit?: number;
}

/** Options of {@link SkillSearchIndex.explain}. */
export interface SkillExplainOptions extends SkillSearchOptions {
  /** Skills to explain whatever their rank or status ("why didn't this skill match?"), resolved as the structure sees them. */
  slugs?: string[];
}

/** A search with the figures the gap log keeps. */
export interface SearchLookup {
  matches: SearchMatch[];
  /** The best candidates, kept or cut, with their scores (at most 3). */
  top: { slug: string; score: number }[];
  /** How much of the query the best match carries (0–1), or null without a match. */
  support: number | null;
}

/** The persisted content of an index (see `snapshot.ts`); the postings may load lazily. */
export interface SkillSearchIndexData {
  docs: DocTableData;
  base: BasePostings | (() => BasePostings);
}

/** A live search index of skills, updated by skill key (`<slug>` or `<structure_id>/<slug>`). */
export interface SkillSearchIndex {
  /** Number of indexed skills (any status). */
  readonly size: number;
  has(key: string): boolean;
  /** Adds the document, or replaces the one with the same key. */
  set(doc: SearchDocument): void;
  /** `set` for each document of a batch analysed elsewhere (a worker thread), in order. */
  addBatch(batch: AnalysedBatch): void;
  /** Removes a skill by key; false when it was not indexed. */
  remove(key: string): boolean;
  /** Ranked, explained matches among `complete` skills visible to the structure; [] when nothing is relevant. */
  search(query: string, options?: SkillSearchOptions): SearchMatch[];
  /** Like `search`, with the best candidates and the strength of the best match. */
  lookup(query: string, options?: SkillSearchOptions): SearchLookup;
  /** The matches with a breakdown of every candidate considered, cut ones included. */
  explain(query: string, options?: SkillExplainOptions): SearchExplanation;
  /** Folds recent changes into the compact postings when they have grown large enough (or always with `force`). */
  compact(force?: boolean): void;
  /** The index content for a snapshot (compacts first). */
  toData(): SkillSearchIndexData;
}

const FIELD_COUNT = SEARCH_FIELDS.length;

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** Delta entries (relative to the base) beyond which `compact()` folds them in. */
const COMPACT_SHARE = 0.1;
const COMPACT_MIN_ENTRIES = 50_000;

/** Creates an empty index. */
export function createSkillSearchIndex(options: SkillSearchIndexOptions = {}): SkillSearchIndex {
  return buildIndex(new DocTable(), emptyBase(), options);
}

/** Restores an index from snapshot data; throws when it is malformed. */
export function loadSkillSearchIndex(data: SkillSearchIndexData, options: SkillSearchIndexOptions = {}): SkillSearchIndex {
  return buildIndex(DocTable.fromData(data.docs), data.base, options);
}

function buildIndex(initialDocs: DocTable, initialBase: BasePostings | (() => BasePostings), options: SkillSearchIndexOptions): SkillSearchIndex {
  const tuning = resolveTuning(options.tuning);
  let docs = initialDocs;
  let baseValue: BasePostings | undefined = typeof initialBase === 'function' ? undefined : initialBase;
  let loadBase = typeof initialBase === 'function' ? initialBase : undefined;
  let delta = new DeltaPostings();
  const scratch = new ScoreScratch();
  let synonymSource: SynonymSource | undefined;
  let synonymsTried = false;

  const base = (): BasePostings => {
    if (!baseValue) {
      baseValue = (loadBase as () => BasePostings)();
      loadBase = undefined;
      if (baseValue.offsets.length !== baseValue.terms.length + 1) throw new TypeError('malformed postings');
    }
    return baseValue;
  };

  const deltaDf = (term: string): number => {
    const r = delta.termIndex(term);
    return r < 0 ? 0 : (delta.rows().df[r] as number);
  };

  // The structures' word counts, taken on the first search that needs them (see scope-stats.ts).
  let stats: ScopeStats | undefined;
  const statsNow = (): ScopeStats => (stats ??= ScopeStats.build(docs, base(), delta));

  /** What ranking reads, as the searching structure sees the library: its own skills and the instance skills. */
  const source = (structureId?: string): PlanSource & ScoreSource => {
    const b = base();
    const total = (term: string): number => {
      const t = baseTerm(b, term);
      return (t >= 0 ? (b.df[t] as number) : 0) + deltaDf(term);
    };
    // A library without structure skills: every search sees all of it.
    const scoped = docs.scopes.length > 0;
    const scope = structureId === undefined ? undefined : docs.scopeIndex(structureId);
    const counts = scoped ? statsNow() : undefined;
    return {
      docs,
      base: b,
      delta,
      documentCount: scoped ? docs.live - docs.scopedLive + (scope === undefined ? 0 : docs.liveIn(scope)) : docs.live,
      documentFrequency: counts ? (term) => counts.frequency(total(term), term, scope) : total,
      synonyms() {
        if (!synonymsTried) {
          synonymsTried = true;
          synonymSource = typeof options.synonyms === 'function' ? options.synonyms() : options.synonyms;
        }
        return synonymSource;
      },
    };
  };

  const run = (query: string, opts: SkillExplainOptions, watch?: Set<number>): { plan: QueryPlan; scored: ScoreResult; ranked: RankedCandidate[] } => {
    const src = source(opts.structureId);
    const plan = planQuery(query, src, tuning);
    const depth = Math.max(tuning.rerankDepth, opts.limit ?? 5);
    const scored = score(src, plan, tuning, scratch, { depth, ...(opts.structureId ? { structureId: opts.structureId } : {}), ...(opts.hidden ? { hidden: opts.hidden } : {}), ...(watch ? { watch } : {}) });
    const ranked = rankCandidates(src, plan, scored.candidates, tuning, opts.structureId, opts.hidden);
    return { plan, scored, ranked };
  };

  const index: SkillSearchIndex = {
    get size() {
      return docs.live;
    },
    has: (key) => docs.bySlug.has(key),
    set(doc) {
      const analysed = analyseDocument(doc);
      const id = docs.add(documentFacts(doc), analysed.lengths);
      delta.add(id, analysed.fields, analysed.words);
      const scope = docs.scope[id] as number;
      if (stats && scope !== -1) stats.add(scope, analysed.fields.flatMap((counts) => [...counts.keys()]));
    },
    addBatch(batch) {
      const first = docs.count;
      const rows = delta.rowsOf(batch.stems);
      let entry = 0;
      let word = 0;
      batch.facts.forEach((facts, d) => {
        const id = docs.add(facts, batch.lengths.subarray(d * FIELD_COUNT, (d + 1) * FIELD_COUNT));
        const entryEnd = batch.entryEnd[d] as number;
        delta.addEntries(id, rows, batch.entryStem, batch.entryPacked, entry, entryEnd);
        entry = entryEnd;
        const wordEnd = batch.wordEnd[d] as number;
        for (; word < wordEnd; word++) {
          const w = batch.docWords[word] as number;
          delta.addWord(batch.words[w] as string, batch.stems[batch.wordStem[w] as number] as string);
        }
      });
      stats?.addBatch(docs, batch, first);
    },
    remove(key) {
      const id = docs.bySlug.get(key);
      if (id === undefined) return false;
      docs.remove(id);
      return true;
    },
    search: (query, opts) => index.lookup(query, opts).matches,
    lookup(query, opts = {}) {
      const limit = opts.limit ?? 5;
      const { plan, ranked } = run(query, opts);
      const matches: SearchMatch[] = [];
      let support: number | null = null;
      const slugOf = (doc: number) => docs.slugAt(doc);
      const labels = { slugOf, nameOf: (doc: number) => docs.names[doc] ?? '' };
      for (const candidate of ranked) {
        if (!candidate.kept) continue;
        support ??= candidate.support;
        matches.push({ slug: slugOf(candidate.doc), score: round(candidate.final), reason: reasonOf(candidate, plan, labels) });
        if (matches.length >= limit) break;
      }
      const top = ranked.slice(0, 3).map((c) => ({ slug: slugOf(c.doc), score: round(c.final) }));
      return { matches, top, support };
    },
    explain(query, opts = {}) {
      const watch = new Set<number>();
      // Only what the structure reaches by these slugs: another structure's skill is never watched.
      for (const slug of opts.slugs ?? []) {
        const id = docs.resolve(slug, opts.structureId, opts.hidden);
        if (id !== undefined) watch.add(id);
      }
      const { plan, scored, ranked } = run(query, opts, watch);
      return explainSearch({ query, plan, scored, ranked, source: source(opts.structureId), tuning, limit: opts.limit ?? 5, slugs: opts.slugs ?? [], structureId: opts.structureId, hidden: opts.hidden });
    },
    compact(force = false) {
      const b = base();
      if (delta.entries === 0 && docs.live === docs.count) return;
      if (!force && delta.entries < Math.max(COMPACT_MIN_ENTRIES, b.docs.length * COMPACT_SHARE) && docs.live > docs.count * 0.8) return;
      const { table, remap } = docs.compacted();
      baseValue = mergePostings(b, delta, remap);
      docs = table;
      delta = new DeltaPostings();
      // Replaced documents are gone from the library's counts now: take the structures' again when needed.
      stats = undefined;
    },
    toData() {
      index.compact(true);
      return { docs: docs.toData(), base: base() };
    },
  };
  return index;
}

export { STATUS };
