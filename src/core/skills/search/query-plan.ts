/**
 * Turns a natural-language query into a plan: its content words ("concepts"), each
 * with an IDF weight and up to a few WordNet synonyms that occur in the index, and the
 * flat list of terms sent to MiniSearch with their boosts and matching modes.
 */
import { queryWords, stemOf } from './analyzer.js';
import type { SearchTuning } from './tuning.js';
import type { SynonymSource } from './wordnet.js';

/** One content word of the query. */
export interface Concept {
  word: string;
  stem: string;
  /** Scaled IDF of the stem (0–1); `unknownWeight` when no skill has it. */
  weight: number;
  /** False when no indexed skill contains the stem (a typo or an off-topic word). */
  known: boolean;
  /** Synonym stem → synonym word, only stems present in the index. */
  synonyms: Map<string, string>;
}

/**
 * How a query term relates to its concept: `word` is the stem (exact and prefix
 * matching for the last word), `typo` the word as typed when no skill has its stem
 * (fuzzy matching), `synonym`
 * a WordNet synonym's stem (exact only, lower boost).
 */
export interface PlannedTerm {
  concept: number;
  kind: 'word' | 'typo' | 'synonym';
  boost: number;
  /** Also match longer terms starting with this one (the last word, which may be unfinished). */
  prefix: boolean;
}

/** The analysed query. */
export interface QueryPlan {
  concepts: Concept[];
  terms: Map<string, PlannedTerm>;
  /** Sum of the largest concept weights: the denominator of coverage. */
  totalWeight: number;
  /** Scaled IDF of any index term (weights typo matches by the term they hit). */
  weightOf(term: string): number;
}

/** Document frequencies the planner needs from the index. */
export interface TermStatsSource {
  documentCount: number;
  documentFrequency(term: string): number;
}

/** Smoothed IDF of a term that occurs in `df` of `n` documents. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** IDF scaled to 0–1 by the IDF of a term no document has, so thresholds hold at any index size. */
export function termWeight(df: number, n: number): number {
  return idf(df, n) / idf(0, n);
}

/** Analyses `query` against the index statistics. */
export function planQuery(
  query: string,
  stats: TermStatsSource,
  synonyms: SynonymSource | undefined,
  tuning: SearchTuning,
): QueryPlan {
  // A small library cannot tell common words from rare ones: weigh as if it had minCorpusSize skills.
  const n = Math.max(stats.documentCount, tuning.minCorpusSize, 1);
  const words = queryWords(query, tuning.maxQueryWords);
  const stems = new Set(words.map((w) => w.stem));
  const concepts: Concept[] = [];
  const terms = new Map<string, PlannedTerm>();
  words.forEach(({ word, stem }, i) => {
    const df = stats.documentFrequency(stem);
    const known = df > 0;
    const concept: Concept = { word, stem, known, weight: known ? termWeight(df, n) : tuning.unknownWeight, synonyms: new Map() };
    concepts.push(concept);
    // A word in a large share of all skills says little and costs a scan of all of them.
    const total = stats.documentCount;
    if (known && total >= tuning.minCorpusSize && df / total > tuning.maxDocumentShare) return;
    if (known) terms.set(stem, { concept: i, kind: 'word', boost: 1, prefix: i === words.length - 1 });
    else if (!terms.has(word)) terms.set(word, { concept: i, kind: 'typo', boost: 1, prefix: false });
    if (!synonyms || tuning.synonymsPerWord <= 0) return;
    for (const synonym of synonyms.synonyms(word)) {
      const term = stemOf(synonym);
      if (term === null || stems.has(term) || terms.has(term) || stats.documentFrequency(term) === 0) continue;
      concept.synonyms.set(term, synonym);
      terms.set(term, { concept: i, kind: 'synonym', boost: tuning.synonymBoost, prefix: false });
      if (concept.synonyms.size >= tuning.synonymsPerWord) break;
    }
  });
  const top = concepts
    .map((c) => c.weight)
    .sort((a, b) => b - a)
    .slice(0, tuning.coverageTopConcepts);
  return {
    concepts,
    terms,
    totalWeight: top.reduce((sum, w) => sum + w, 0),
    weightOf: (term) => termWeight(stats.documentFrequency(term), n),
  };
}
