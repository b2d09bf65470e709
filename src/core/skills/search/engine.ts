/**
 * The skill search index: MiniSearch over name, tags, summary, category, step titles
 * and body with field boosts, Porter stems and stop words, prefix and fuzzy matching,
 * WordNet synonyms at query time, and the ranking and relevance floor of `rank.ts`.
 * Documents are added, replaced and removed by slug; nothing is ever rebuilt whole.
 */
import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import type { SearchMatch } from '../types.js';
import { indexTerms, tokenize } from './analyzer.js';
import { fieldText, type SearchDocument } from './document.js';
import { planQuery } from './query-plan.js';
import { rankResults, type RankedMatch } from './rank.js';
import { TermStats, type TermStatsJSON } from './term-stats.js';
import { resolveTuning, SEARCH_FIELDS, type SearchField, type SearchTuning } from './tuning.js';
import type { SynonymSource } from './wordnet.js';

/** Options of {@link createSkillSearchIndex}. */
export interface SkillSearchIndexOptions {
  /** Ranking knobs; defaults in `tuning.ts`. */
  tuning?: Partial<SearchTuning>;
  /** Synonym source for query expansion; omit for none (the store passes WordNet). */
  synonyms?: SynonymSource;
}

/** Options of one search. */
export interface SkillSearchOptions {
  /** Structure asking: structure-scoped skills of other structures are never returned. */
  structureId?: string;
  /** Most matches returned; default 5. */
  limit?: number;
}

/** The persisted form of an index (see `persist.ts`). */
export interface SkillSearchIndexJSON {
  minisearch: ReturnType<MiniSearch['toJSON']>;
  stats: TermStatsJSON;
}

/** A live search index of skills, updated by slug. */
export interface SkillSearchIndex {
  /** Number of indexed skills (any status). */
  readonly size: number;
  has(slug: string): boolean;
  /** Adds the document, or replaces the one with the same slug. */
  set(doc: SearchDocument): void;
  /** Removes a skill; false when it was not indexed. */
  remove(slug: string): boolean;
  /** Ranked, explained matches among `complete` skills visible to the structure. */
  search(query: string, options?: SkillSearchOptions): SearchMatch[];
  /** Like `search`, with the evidence and coverage figures behind each rank. */
  searchDetailed(query: string, options?: SkillSearchOptions): RankedMatch[];
  /** A JSON-able snapshot for persistence. */
  toJSON(): SkillSearchIndexJSON;
}

const identity = (term: string): string => term;
const splitSpaces = (text: string): string[] => text.split(' ');

/** Terms of the document being added, collected while MiniSearch tokenizes it (for document frequencies). */
let collecting: Set<string> | undefined;

function miniSearchOptions(): Options<SearchDocument> {
  return {
    idField: 'slug',
    fields: [...SEARCH_FIELDS],
    storeFields: ['status', 'structure_id'],
    extractField: (doc, field) => fieldText(doc, field as SearchField),
    tokenize,
    processTerm: (term) => {
      const terms = indexTerms(term);
      if (collecting && terms) for (const t of terms) collecting.add(t);
      return terms;
    },
  };
}

/** Creates an empty index. */
export function createSkillSearchIndex(options: SkillSearchIndexOptions = {}): SkillSearchIndex {
  return buildIndex(new MiniSearch(miniSearchOptions()), new TermStats(), options);
}

/** Restores an index saved with `toJSON()`; throws when the snapshot is malformed. */
export function loadSkillSearchIndex(json: SkillSearchIndexJSON, options: SkillSearchIndexOptions = {}): SkillSearchIndex {
  const mini = MiniSearch.loadJS<SearchDocument>(json.minisearch, miniSearchOptions());
  const stats = TermStats.fromJSON(json.stats);
  if (stats.documentCount !== mini.documentCount) throw new TypeError('index and term statistics disagree');
  return buildIndex(mini, stats, options);
}

function buildIndex(mini: MiniSearch<SearchDocument>, stats: TermStats, options: SkillSearchIndexOptions): SkillSearchIndex {
  const tuning = resolveTuning(options.tuning);

  const searchDetailed = (query: string, opts: SkillSearchOptions = {}): RankedMatch[] => {
    const plan = planQuery(query, stats, options.synonyms, tuning);
    if (plan.terms.size === 0) return [];
    const visible = (result: SearchResult): boolean =>
      result.status === 'complete' && (result.structure_id === undefined || result.structure_id === opts.structureId);
    const results = mini.search([...plan.terms.keys()].join(' '), {
      tokenize: splitSpaces,
      processTerm: identity,
      boost: tuning.boosts,
      boostTerm: (term) => plan.terms.get(term)?.boost ?? 1,
      prefix: (term) => (plan.terms.get(term)?.prefix ?? false) && term.length >= tuning.prefixMinLength,
      fuzzy: (term) =>
        plan.terms.get(term)?.kind === 'typo' && term.length >= tuning.fuzzyMinLength ? tuning.fuzzy : false,
      maxFuzzy: 2,
      weights: tuning.weights,
      filter: visible,
    });
    return rankResults(results, plan, tuning).slice(0, opts.limit ?? 5);
  };

  return {
    get size() {
      return mini.documentCount;
    },
    has: (slug) => mini.has(slug),
    set(doc) {
      const terms = new Set<string>();
      collecting = terms;
      try {
        if (mini.has(doc.slug)) mini.replace(doc);
        else mini.add(doc);
      } finally {
        collecting = undefined;
      }
      stats.set(doc.slug, terms);
    },
    remove(slug) {
      if (!mini.has(slug)) return false;
      mini.discard(slug);
      stats.remove(slug);
      return true;
    },
    search: (query, opts) => searchDetailed(query, opts).map(({ slug, score, reason }) => ({ slug, score, reason })),
    searchDetailed,
    toJSON: () => ({ minisearch: mini.toJSON(), stats: stats.toJSON() }),
  };
}
