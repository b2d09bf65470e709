/**
 * The skill search index: one MiniSearch over the library (fields name, tags, triggers,
 * summary and body with their boosts, org's analysis as its `tokenize` and
 * `processTerm`), documents added, replaced and discarded by id, its own JSON as the
 * snapshot. A search reads the query into weighted terms (`plan.ts`), asks MiniSearch
 * for them in one query (`boostTerm` weighs each; `filter` keeps what the structure may
 * see), and ranks what MiniSearch found (`ranking.ts`): coverage, triggers and names,
 * successors of deprecated skills and the no-match decision. Nothing is kept beside
 * MiniSearch but the spellings reasons quote.
 */
import type { SearchResult } from 'minisearch';
import type { SearchMatch, SkillListEntry } from '../types.js';
import { createAnalyzer, tokenize } from './analysis.js';
import { documentId, fieldText, type SearchDocument, type StoredSkill } from './document.js';
import { explainSearch, type SearchExplanation, type WatchedSkill } from './explain.js';
import { planQuery, type QueryPlan } from './plan.js';
import { coverageOf, rankCandidates, type Candidate, type RankedCandidate, type RankSource } from './ranking.js';
import { reasonOf } from './reason.js';
import { SkillMiniSearch, TopK } from './terms.js';
import { resolveTuning, SEARCH_FIELDS, type SearchTuning } from './tuning.js';
import type { SynonymSource } from './wordnet.js';

/** Options of {@link createSkillIndex}. */
export interface SkillIndexOptions {
  /** Ranking knobs; defaults in `tuning.ts`. */
  tuning?: Partial<SearchTuning>;
  /** Synonyms, or a function creating the source on first use (WordNet loads only when a search needs it); omit for none. */
  synonyms?: SynonymSource | (() => SynonymSource | undefined);
}

/** Who is searching: which skills they may see. */
export interface SkillSearchOptions {
  /** The structure asking: its own skills and the instance skills it sees; without one, instance skills only. */
  structureId?: string;
  /**
   * Whether the asker sees a skill (default: an instance skill, or one of `structureId`).
   * The store passes the library's visibility rule (a structure's skill shadows an
   * instance skill of the same slug, and a fork hides its original).
   */
  visible?: (entry: SkillListEntry) => boolean;
  /** Most matches returned; default 5. */
  limit?: number;
}

/** Options of {@link SkillIndex.explain}. */
export interface SkillExplainOptions extends SkillSearchOptions {
  /** Skills to explain whatever their rank or status ("why didn't this skill match?"). */
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

/** The skill library's search index. */
export interface SkillIndex {
  /** Number of indexed skills (any status, any structure). */
  readonly size: number;
  has(id: string): boolean;
  /** What the index stores of a skill (its list entry among it). */
  stored(id: string): StoredSkill | undefined;
  /** Adds the document, or replaces the one with its id. */
  set(doc: SearchDocument): void;
  /** Discards a skill; false when it was not indexed. */
  remove(id: string): boolean;
  /** Ranked, explained matches among `complete` skills the asker sees; [] when nothing is relevant. */
  search(query: string, options?: SkillSearchOptions): SearchMatch[];
  /** Like `search`, with the best candidates and the strength of the best match. */
  lookup(query: string, options?: SkillSearchOptions): SearchLookup;
  /** The matches with a breakdown of every candidate considered, cut ones included. */
  explain(query: string, options?: SkillExplainOptions): SearchExplanation;
  /** The snapshot: MiniSearch's JSON and the spellings, as one JSON text. */
  toJSON(): string;
  /** An independent copy (same documents, statistics and spellings): what a structure's own index starts from. */
  copy(): SkillIndex;
  /** The same index searched with other knobs (the evaluation's calibration runs). */
  withTuning(tuning: Partial<SearchTuning>): SkillIndex;
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** The MiniSearch options of the index (the same to build it and to restore it). */
function miniSearchOptions(processTerm: (term: string) => string | null) {
  return {
    idField: 'id',
    fields: [...SEARCH_FIELDS],
    storeFields: ['skill'],
    extractField: (doc: SearchDocument, field: string) => (field === 'id' ? doc.id : field === 'skill' ? doc.skill : fieldText(doc, field)),
    tokenize,
    processTerm,
    // Discarded versions are swept in the background once a tenth of the index is dirt.
    autoVacuum: { minDirtCount: 100, minDirtFactor: 0.1, batchSize: 2000, batchWait: 5 },
  };
}

/** Creates an empty index. */
export function createSkillIndex(options: SkillIndexOptions = {}): SkillIndex {
  const analyzer = createAnalyzer();
  return buildIndex(new SkillMiniSearch<SearchDocument>(miniSearchOptions(analyzer.processTerm)), analyzer, options);
}

/** Restores an index from {@link SkillIndex.toJSON}; rejects when the text is not one. */
export async function loadSkillIndex(json: string, options: SkillIndexOptions = {}): Promise<SkillIndex> {
  const analyzer = createAnalyzer();
  const at = json.indexOf('\n');
  if (at < 0) throw new TypeError('not a skill index snapshot');
  const surfaces = JSON.parse(json.slice(0, at)) as unknown;
  if (typeof surfaces !== 'object' || surfaces === null || Array.isArray(surfaces)) throw new TypeError('not a skill index snapshot');
  analyzer.restore(surfaces as Record<string, string>);
  const mini = await SkillMiniSearch.restore<SearchDocument>(json.slice(at + 1), miniSearchOptions(analyzer.processTerm));
  return buildIndex(mini, analyzer, options);
}

function buildIndex(mini: SkillMiniSearch<SearchDocument>, analyzer: ReturnType<typeof createAnalyzer>, options: SkillIndexOptions): SkillIndex {
  const tuning = resolveTuning(options.tuning);
  let synonymSource: SynonymSource | undefined;
  let synonymsTried = false;
  const synonyms = (): SynonymSource | undefined => {
    if (!synonymsTried) {
      synonymsTried = true;
      synonymSource = typeof options.synonyms === 'function' ? options.synonyms() : options.synonyms;
    }
    return synonymSource;
  };
  const stored = (id: string): StoredSkill | undefined => (mini.getStoredFields(id) as { skill?: StoredSkill } | undefined)?.skill;

  const terms = {
    get documentCount() {
      return mini.documentCount;
    },
    documentFrequency: (term: string) => mini.documentFrequency(term),
    termsWithPrefix: (prefix: string, max: number) => mini.termsWithPrefix(prefix, max),
    termsNear: (term: string, distance: number) => mini.termsNear(term, distance),
    surfaceOf: analyzer.surfaceOf,
    synonyms,
  };

  /** The live, complete skill visible to the asker that a slug names: the structure's own first. */
  const bySlug = (slug: string, opts: SkillSearchOptions): { id: string; skill: StoredSkill } | undefined => {
    for (const id of opts.structureId !== undefined ? [documentId(slug, opts.structureId), slug] : [slug]) {
      const skill = stored(id);
      if (skill && visible(skill.entry, opts)) return { id, skill };
    }
    return undefined;
  };

  const rankSource = (opts: SkillSearchOptions): RankSource => ({
    documentCount: mini.documentCount,
    documentFrequency: terms.documentFrequency,
    successorOf(skill) {
      for (const hint of skill.successors ?? []) {
        const found = bySlug(hint, opts) ?? byName(hint, opts);
        if (found && found.skill.entry.status === 'complete') return found;
      }
      return undefined;
    },
  });

  /** The complete skill visible to the asker whose name is `name` (any case, spacing or end punctuation). */
  const byName = (name: string, opts: SkillSearchOptions): { id: string; skill: StoredSkill } | undefined => {
    const wanted = normalName(name);
    if (wanted.length === 0) return undefined;
    const results = mini.search(name, {
      fields: ['name'],
      combineWith: 'AND',
      filter: (result) => {
        const skill = result.skill as StoredSkill;
        return skill.entry.status === 'complete' && normalName(skill.entry.name) === wanted && visible(skill.entry, opts);
      },
    });
    const first = results[0];
    return first ? { id: String(first.id), skill: first.skill as StoredSkill } : undefined;
  };

  /**
   * MiniSearch's results for the plan's terms: the best `depth` as candidates (best
   * first), and those of `watch` whatever their status. Only the kept few become objects:
   * a common word reaches most of a large library.
   */
  const candidatesOf = (plan: QueryPlan, opts: SkillSearchOptions, depth: number, watch?: ReadonlySet<string>): { candidates: Candidate[]; watched: Map<string, Candidate> } => {
    const watched = new Map<string, Candidate>();
    if (plan.terms.size === 0) return { candidates: [], watched };
    const eligible = (skill: StoredSkill) => (skill.entry.status === 'complete' || skill.entry.status === 'deprecated') && visible(skill.entry, opts);
    // No `filter`: the loop below reads each result once anyway, and drops what the asker may not see.
    const results = mini.search([...plan.terms.keys()].join(' '), {
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
      boostTerm: (term) => plan.terms.get(term)?.weight ?? 1,
      boost: tuning.boosts,
      bm25: tuning.bm25,
    });
    const best = new TopK<SearchResult>(depth);
    const candidate = (result: SearchResult): Candidate => {
      const bm25 = result.score / Math.max(1, result.queryTerms.length);
      const coverage = coverageOf(plan, result.match);
      const score = bm25 * Math.pow(coverage.share, tuning.coveragePower) * Math.pow(coverage.words, tuning.matchedWordsPower);
      return { id: String(result.id), skill: result.skill as StoredSkill, bm25, coverage: coverage.share, score, match: result.match };
    };
    // Results come best first by MiniSearch's score, which bounds org's (coverage is at most
    // 1, and the count of words matched at most MiniSearch's count of terms): once a result's
    // is below the last kept, no later one can enter.
    const bounded = tuning.matchedWordsPower <= 1 && tuning.coveragePower >= 0 && !watch?.size;
    for (const result of results) {
      if (bounded && best.full() && result.score < best.floor()) break;
      const skill = result.skill as StoredSkill;
      if (watch?.has(String(result.id))) watched.set(String(result.id), candidate(result));
      if (!eligible(skill)) continue;
      const coverage = coverageOf(plan, result.match);
      const score = (result.score / Math.max(1, result.queryTerms.length)) * Math.pow(coverage.share, tuning.coveragePower) * Math.pow(coverage.words, tuning.matchedWordsPower);
      best.offer(score, String(result.id), result);
    }
    const candidates = best.sorted().map(({ item }) => candidate(item));
    return { candidates, watched };
  };

  const run = (query: string, opts: SkillSearchOptions, watch?: ReadonlySet<string>) => {
    const plan = planQuery(query, terms, tuning);
    const depth = Math.max(tuning.rerankDepth, opts.limit ?? 5);
    const { candidates, watched } = candidatesOf(plan, opts, depth, watch);
    const source = rankSource(opts);
    const ranked = rankCandidates(source, plan, candidates, tuning);
    return { plan, ranked, watched, source };
  };

  const index: SkillIndex = {
    get size() {
      return mini.documentCount;
    },
    has: (id) => mini.has(id),
    stored,
    set(doc) {
      if (mini.has(doc.id)) mini.replace(doc);
      else mini.add(doc);
      mini.changed();
    },
    remove(id) {
      if (!mini.has(id)) return false;
      mini.discard(id);
      mini.changed();
      return true;
    },
    search: (query, opts) => index.lookup(query, opts).matches,
    lookup(query, opts = {}) {
      const limit = opts.limit ?? 5;
      const { plan, ranked } = run(query, opts);
      const matches: SearchMatch[] = [];
      let support: number | null = null;
      for (const candidate of ranked) {
        if (!candidate.kept) continue;
        support ??= candidate.support;
        matches.push({ slug: candidate.skill.entry.slug, score: round(candidate.final), reason: reasonOf(candidate, plan, analyzer.surfaceOf) });
        if (matches.length >= limit) break;
      }
      const top = ranked.slice(0, 3).map((c) => ({ slug: c.skill.entry.slug, score: round(c.final) }));
      return { matches, top, support };
    },
    explain(query, opts = {}) {
      const asked: WatchedSkill[] = (opts.slugs ?? []).map((slug) => {
        const found = [...(opts.structureId !== undefined ? [documentId(slug, opts.structureId)] : []), slug]
          .map((id) => ({ id, skill: stored(id) }))
          .find((hit) => hit.skill && visible(hit.skill.entry, opts));
        if (!found?.skill) return { slug };
        const excluded = found.skill.entry.status === 'draft' ? 'it is a draft, and drafts never match on their own (name it with /slug)' : undefined;
        return { slug, id: found.id, skill: found.skill, ...(excluded ? { excluded } : {}) };
      });
      const watch = new Set(asked.map((w) => w.id).filter((id): id is string => id !== undefined));
      const { plan, ranked, watched, source } = run(query, opts, watch);
      for (const w of asked) {
        const figures = w.id === undefined ? undefined : watched.get(w.id);
        if (figures) w.figures = describeAlone(source, plan, figures);
      }
      return explainSearch({ plan, ranked, tuning, limit: opts.limit ?? 5, watched: asked, surfaceOf: analyzer.surfaceOf });
    },
    toJSON: () => `${JSON.stringify(analyzer.surfaces())}\n${JSON.stringify(mini)}`,
    copy() {
      const copied = createAnalyzer();
      copied.restore(analyzer.surfaces());
      return buildIndex(SkillMiniSearch.restoreSync<SearchDocument>(JSON.stringify(mini), miniSearchOptions(copied.processTerm)), copied, options);
    },
    withTuning: (other) => buildIndex(mini, analyzer, { ...options, tuning: other }),
  };

  /** A watched skill's figures as ranking describes them (alone: no successor, no decision). */
  const describeAlone = (source: RankSource, plan: QueryPlan, candidate: Candidate): RankedCandidate => {
    const [described] = rankCandidates({ ...source, successorOf: () => undefined }, plan, [candidate], tuning);
    return described ?? (undefined as never);
  };
  return index;
}

/** Whether the asker sees an entry: the given rule, or instance skills and the structure's own. */
function visible(entry: SkillListEntry, opts: SkillSearchOptions): boolean {
  if (opts.visible) return opts.visible(entry);
  return entry.structure_id === undefined || entry.structure_id === opts.structureId;
}

/** A name as compared with a name quoted in a deprecated skill: lowercase, spaces collapsed, end punctuation dropped. */
function normalName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/^[\s"'“”`]+|[\s"'“”`.,;:!?]+$/g, '');
}
