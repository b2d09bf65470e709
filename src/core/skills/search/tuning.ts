/**
 * The knobs of skill search, with their defaults in one place. The defaults were
 * tuned on `test/fixtures/search-eval/` (see `eval.ts`); change them only with the
 * evaluation test running.
 */

/** The indexed fields of a skill (`intro`: the body before its first section heading). */
export const SEARCH_FIELDS = ['name', 'tags', 'summary', 'category', 'intro', 'steps', 'body'] as const;
/** One indexed field. */
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Ranking parameters of {@link createSkillSearchIndex}. */
export interface SearchTuning {
  /** Score multiplier of a match per field. */
  boosts: Record<SearchField, number>;
  /** Fuzzy edit distance of an unknown word as a fraction of its length (0 disables). */
  fuzzy: number;
  /** Shortest unknown word that is matched fuzzily. */
  fuzzyMinLength: number;
  /** Shortest query term (stem) that also matches as a prefix. */
  prefixMinLength: number;
  /** Score weights of fuzzy and prefix matches relative to exact ones. */
  weights: { fuzzy: number; prefix: number };
  /** WordNet synonyms added per query word. */
  synonymsPerWord: number;
  /** Score weight of a synonym relative to the word itself. */
  synonymBoost: number;
  /** Evidence credit of a concept matched in the name or tags. */
  nameCredit: number;
  /** Evidence credit of a concept matched only in the body (vs a title-like field). */
  bodyOnlyCredit: number;
  /** Evidence credit of a concept matched only through a synonym or prefix. */
  looseCredit: number;
  /** Evidence credit of a typo matched fuzzily. */
  typoCredit: number;
  /** Weight (0–1, like the IDF-based weights) of a query word no skill contains. */
  unknownWeight: number;
  /** Coverage is measured against this many heaviest query words (long messages are not penalised for length). */
  coverageTopConcepts: number;
  /** A result needs a query word (not only a synonym) in name, tags, summary, category or intro. */
  requireAnchor: boolean;
  /** Least evidence (sum of matched words' weights × credit, weights 0–1) for a result to count. */
  minEvidence: number;
  /** Least share of the query's content (IDF-weighted) a result must cover. */
  minCoverage: number;
  /** Results scoring below this share of the best result are dropped. */
  relativeCut: number;
  /** How strongly coverage multiplies the BM25 score (exponent). */
  coveragePower: number;
  /** Word weights are computed as if the library had at least this many skills. */
  minCorpusSize: number;
  /** Query words found in more than this share of all skills are not searched (near stop words). */
  maxDocumentShare: number;
  /** Content words of a query considered (long chat messages are cut). */
  maxQueryWords: number;
}

/** The tuned defaults. */
export const DEFAULT_TUNING: SearchTuning = {
  boosts: { name: 4, tags: 3, summary: 2, category: 1.5, intro: 3, steps: 2, body: 1 },
  fuzzy: 0.34,
  fuzzyMinLength: 4,
  prefixMinLength: 4,
  weights: { fuzzy: 0.5, prefix: 0.4 },
  synonymsPerWord: 4,
  synonymBoost: 0.4,
  nameCredit: 1.25,
  bodyOnlyCredit: 0.5,
  looseCredit: 0.5,
  typoCredit: 0.8,
  unknownWeight: 0.5,
  coverageTopConcepts: 5,
  requireAnchor: true,
  minEvidence: 0.6,
  minCoverage: 0.35,
  relativeCut: 0.15,
  coveragePower: 2,
  minCorpusSize: 50,
  maxDocumentShare: 0.3,
  maxQueryWords: 32,
};

/** Merges a partial tuning over the defaults (boosts and weights member by member). */
export function resolveTuning(partial: Partial<SearchTuning> = {}): SearchTuning {
  return {
    ...DEFAULT_TUNING,
    ...partial,
    boosts: { ...DEFAULT_TUNING.boosts, ...partial.boosts },
    weights: { ...DEFAULT_TUNING.weights, ...partial.weights },
  };
}
