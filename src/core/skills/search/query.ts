/**
 * Query analysis: the content words of a query ("concepts"), each weighed by how rare
 * it is in the library (IDF scaled to 0–1), and the index terms each one is matched
 * through: its own stem; longer words it is the prefix of; when the library has no such
 * word, the words one or two edits away (a typo, short words included: "dwn" → "down");
 * and when even that finds nothing, WordNet synonyms. Two query words written apart
 * that the library writes as one word ("on board" → "onboard", "log in" → "login",
 * "e-mail" → "email") also reach that word, as strongly as the word itself. No word is ever left out for
 * being common: a word every skill has still counts, only with a small weight.
 */
import { porterOf, queryWords, stemOf, tokenize } from './analyzer.js';
import { fuzzyWords, prefixRange } from './lexicon.js';
import { negatedStems } from './negation.js';
import type { BasePostings, DeltaPostings } from './postings.js';
import type { SearchTuning } from './tuning.js';
import type { SynonymSource } from './wordnet.js';

/** How an index term was reached from a query word. */
export type MatchKind = 'exact' | 'compound' | 'variant' | 'prefix' | 'fuzzy' | 'synonym';

/** One index term a query word is matched through. */
export interface Expansion {
  /** The stem looked up in the postings. */
  term: string;
  kind: MatchKind;
  /** Score multiplier (1 for the word itself). */
  weight: number;
  /** The indexed word as written that the match went through (prefix, typo, synonym). */
  via?: string;
  /**
   * For a dictionary word read as a typo ("breech" → "breach"): the weight the match
   * earns in a skill that also matches another word of the query (the context confirms
   * the reading).
   */
  inContext?: number;
  /** For a compound: the query's two words as typed ("on board" for "onboard"). */
  phrase?: string;
}

/** One content word of the query. */
export interface Concept {
  /** The word as typed, lowercase. */
  word: string;
  stem: string;
  /** Scaled IDF (0–1) of what it matched; `unknownWeight` when it matched nothing. */
  weight: number;
  /** False when no skill contains the word or anything it expands to. */
  known: boolean;
  expansions: Expansion[];
}

/** The analysed query. */
export interface QueryPlan {
  concepts: Concept[];
  /** Sum of the heaviest concept weights: the denominator of coverage. */
  totalWeight: number;
  /** Every stem the query reaches (its words' stems and their expansions). */
  stems: Set<string>;
  /**
   * Stems a skill's name may hold that mean the opposite of the request: antonyms of a
   * query word ("fir" for "hire") and words the query negates ("renew" in "did not renew").
   */
  contrasts: Map<string, Contrast>;
}

/** Why a stem in a skill's name goes against the query. */
export interface Contrast {
  /** The query word's stem it is opposite to (an antonym), or the stem itself when negated. */
  of: string;
  /** True when the query negates the word ("not renew"); false for an antonym of a query word. */
  negated: boolean;
}

/** What planning needs from the index. */
export interface PlanSource {
  base: BasePostings;
  delta: DeltaPostings;
  /** Live documents (at least 1). */
  documentCount: number;
  documentFrequency(term: string): number;
  /** The synonym source, created on first use (WordNet loads only when a word matches nothing). */
  synonyms(): SynonymSource | undefined;
}

/** Smoothed IDF of a term in `df` of `n` documents. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** IDF scaled to 0–1 by the IDF of a term no document has, so thresholds hold at any library size. */
export function termWeight(df: number, n: number): number {
  return idf(df, n) / idf(0, n);
}

/** Analyses `query` against the index. */
export function planQuery(query: string, source: PlanSource, tuning: SearchTuning): QueryPlan {
  const n = Math.max(source.documentCount, tuning.minCorpusSize);
  const words = queryWords(query, tuning.maxQueryWords);
  const stems = new Set(words.map((w) => w.stem));
  const compounds = compoundsOf(query, words, source);
  const concepts: Concept[] = words.map(({ word, stem }, i) => {
    const expansions = expand(word, stem, i === words.length - 1, source, tuning);
    for (const compound of compounds.get(stem) ?? []) if (!expansions.some((e) => e.term === compound.term)) expansions.push(compound);
    for (const expansion of expansions) stems.add(expansion.term);
    const best = expansions.reduce((max, e) => Math.max(max, e.weight === 0 ? 0 : termWeight(source.documentFrequency(e.term), n)), 0);
    const exact = expansions.find((e) => e.kind === 'exact');
    const weight = exact
      ? termWeight(source.documentFrequency(exact.term), n)
      : expansions.length > 0
        ? best
        : isEnglish(word, source)
          ? tuning.unknownWordWeight
          : tuning.unknownWeight;
    return { word, stem, weight, known: expansions.length > 0, expansions };
  });
  const top = concepts
    .map((c) => c.weight)
    .sort((a, b) => b - a)
    .slice(0, tuning.coverageWords);
  return { concepts, totalWeight: top.reduce((sum, w) => sum + w, 0), stems, contrasts: contrastsOf(query, words, source, tuning) };
}

/**
 * Adjacent words of the query that the library has as one word ("on board" → "onboard",
 * stop words included), keyed by the stem of the pair's last content word, whose
 * concept the compound joins: the user wrote the word, only with a space in it.
 */
function compoundsOf(query: string, words: readonly { word: string; stem: string }[], source: PlanSource): Map<string, Expansion[]> {
  const out = new Map<string, Expansion[]>();
  const tokens = tokenize(query);
  const own = new Set(words.map((w) => w.stem));
  for (let i = 0; i + 1 < tokens.length; i++) {
    const first = tokens[i] as string;
    const second = tokens[i + 1] as string;
    const joined = first + second;
    const term = stemOf(joined);
    // The joined word must be in a skill the searcher sees, not only in the lexicon.
    if (term === null || own.has(term) || !hasWord(joined, source) || source.documentFrequency(term) === 0) continue;
    const owner = stemOf(second) ?? stemOf(first);
    if (owner === null || !own.has(owner)) continue;
    const list = out.get(owner) ?? [];
    list.push({ term, kind: 'compound', weight: 1, via: joined, phrase: `${first} ${second}` });
    out.set(owner, list);
  }
  return out;
}

/** True when the library has `word` exactly as written (in the base or delta lexicon). */
function hasWord(word: string, source: PlanSource): boolean {
  const [start, end] = prefixRange(source.base.words, word);
  if (start < end && source.base.words[start] === word) return true;
  return source.delta.words.has(word);
}

/** The words the query negates, and the antonyms of its words that it does not contain itself. */
function contrastsOf(query: string, words: { word: string; stem: string }[], source: PlanSource, tuning: SearchTuning): Map<string, Contrast> {
  const contrasts = new Map<string, Contrast>();
  if (tuning.contrastPenalty >= 1) return contrasts;
  for (const stem of negatedStems(query)) contrasts.set(stem, { of: stem, negated: true });
  const dictionary = source.synonyms();
  if (!dictionary?.antonyms) return contrasts;
  const own = new Set(words.map((w) => w.stem));
  for (const { word, stem } of words) {
    for (const antonym of dictionary.antonyms(word)) {
      const other = stemOf(antonym);
      if (other !== null && !own.has(other) && !contrasts.has(other)) contrasts.set(other, { of: stem, negated: false });
    }
  }
  return contrasts;
}

function expand(word: string, stem: string, last: boolean, source: PlanSource, tuning: SearchTuning): Expansion[] {
  const out: Expansion[] = [];
  const known = source.documentFrequency(stem) > 0;
  if (known) out.push({ term: stem, kind: 'exact', weight: 1 });
  out.push(...variants(word, stem, source, tuning));
  const prefixAllowed = tuning.prefixMode === 'always' || (tuning.prefixMode === 'last' && last) || !known;
  if (prefixAllowed && word.length >= tuning.prefixMinLength) {
    const seen = new Set<string>([stem]);
    const found: { term: string; via: string; df: number }[] = [];
    const collect = (words: readonly string[], stemAt: (i: number) => string) => {
      const [start, end] = prefixRange(words, word);
      for (let i = start; i < end && found.length < 200; i++) {
        const term = stemAt(i);
        if (seen.has(term)) continue;
        seen.add(term);
        found.push({ term, via: words[i] as string, df: source.documentFrequency(term) });
      }
    };
    collect(source.base.words, (i) => source.base.terms[source.base.wordStem[i] as number] as string);
    collect(source.delta.wordList(), (i) => source.delta.words.get(source.delta.wordList()[i] as string) as string);
    found.sort((a, b) => b.df - a.df);
    // The prefix of a word the library lacks is an unfinished or misspelt word: a correction.
    const weight = known ? tuning.prefixWeight : tuning.fuzzyWeight;
    for (const hit of found.slice(0, tuning.prefixExpansions)) {
      if (hit.df > 0) out.push({ term: hit.term, kind: 'prefix', weight, via: hit.via });
    }
  }
  if (out.length > 0 || word.length < tuning.fuzzyMinLength || /\d/.test(word)) return withSynonyms(word, stem, out, source, tuning);

  const max = word.length >= tuning.fuzzyTwoEditsLength ? 2 : 1;
  const typos: { term: string; via: string; distance: number; df: number }[] = [];
  const collectTypos = (words: readonly string[], stemAt: (i: number) => string) => {
    for (const hit of fuzzyWords(words, word, max)) {
      const term = stemAt(hit.index);
      typos.push({ term, via: words[hit.index] as string, distance: hit.distance, df: source.documentFrequency(term) });
    }
  };
  collectTypos(source.base.words, (i) => source.base.terms[source.base.wordStem[i] as number] as string);
  collectTypos(source.delta.wordList(), (i) => source.delta.words.get(source.delta.wordList()[i] as string) as string);
  typos.sort((a, b) => a.distance - b.distance || b.df - a.df);
  const nearest = typos[0]?.distance;
  const taken = new Set<string>();
  // A dictionary word ("rain", "poem") is rarely a typo: it is corrected, but weakly.
  const fuzzyWeight = typos.length > 0 && isEnglish(word, source) ? tuning.fuzzyWordWeight : tuning.fuzzyWeight;
  for (const typo of typos) {
    if (typo.distance !== nearest || taken.has(typo.term) || typo.df === 0 || taken.size >= 2) continue;
    taken.add(typo.term);
    const expansion: Expansion = { term: typo.term, kind: 'fuzzy', weight: fuzzyWeight / typo.distance, via: typo.via };
    if (fuzzyWeight !== tuning.fuzzyWeight) expansion.inContext = tuning.fuzzyWeight / typo.distance;
    out.push(expansion);
  }
  // Synonyms of a typo are those of the word it was read as ("wbsite" → "website" → "site").
  const corrected = out[0]?.via;
  return corrected ? withSynonyms(corrected, stemOf(corrected) ?? stem, out, source, tuning, out[0]?.weight ?? 1) : withSynonyms(word, stem, out, source, tuning);
}

/**
 * Stems of words derived from the same root (same Porter stem: "receivable" for
 * "received", "collection" for "collect"), weaker than the word itself, most frequent first.
 */
function variants(word: string, stem: string, source: PlanSource, tuning: SearchTuning): Expansion[] {
  if (tuning.variantWeight <= 0) return [];
  const root = porterOf(stem);
  const found: { term: string; df: number }[] = [];
  const collect = (terms: readonly string[]) => {
    const [start, end] = prefixRange(terms, root.slice(0, Math.max(3, root.length - 1)));
    for (let i = start; i < end && found.length < 50; i++) {
      const term = terms[i] as string;
      // A plural kept whole ("news") is not a relative of its singular.
      if (term === stem || term === `${stem}s` || porterOf(term) !== root || found.some((f) => f.term === term)) continue;
      found.push({ term, df: source.documentFrequency(term) });
    }
  };
  collect(source.base.terms);
  collect(source.delta.termList());
  return found
    .filter((f) => f.df > 0)
    .sort((a, b) => b.df - a.df)
    .slice(0, tuning.prefixExpansions)
    .map((f) => ({ term: f.term, kind: 'variant' as const, weight: tuning.variantWeight, via: surfaceOf(f.term, source) }));
}

/** A word as written whose stem is `term` (for reasons): the shortest in the lexicon. */
function surfaceOf(term: string, source: PlanSource): string {
  let best: string | undefined;
  const scan = (words: readonly string[], stemAt: (i: number) => string) => {
    const [start, end] = prefixRange(words, term.slice(0, Math.max(1, term.length - 1)));
    for (let i = start; i < end; i++) {
      const word = words[i] as string;
      if (stemAt(i) === term && (best === undefined || word.length < best.length)) best = word;
    }
  };
  scan(source.base.words, (i) => source.base.terms[source.base.wordStem[i] as number] as string);
  const deltaWords = source.delta.wordList();
  scan(deltaWords, (i) => source.delta.words.get(deltaWords[i] as string) as string);
  return best ?? term;
}

/** True when the dictionary knows `word` (false without one). */
function isEnglish(word: string, source: PlanSource): boolean {
  return source.synonyms()?.knows?.(word) ?? false;
}

/** Adds WordNet synonyms weighed by their sense's share (all words, or only words that matched nothing). */
function withSynonyms(word: string, stem: string, out: Expansion[], source: PlanSource, tuning: SearchTuning, scale = 1): Expansion[] {
  if (tuning.synonymsPerWord <= 0 || (out.length > 0 && scale === 1 && tuning.synonymMode === 'unknown')) return out;
  const synonyms = source.synonyms();
  if (!synonyms) return out;
  let added = 0;
  for (const synonym of synonyms.synonyms(word)) {
    if (synonym.weight < tuning.minSenseShare) break;
    const term = stemOf(synonym.word);
    if (term === null || term === stem) continue;
    const weight = tuning.synonymWeight * synonym.weight * scale;
    // The synonym itself, or else a word derived from it ("resign" → "resignation").
    const reach = source.documentFrequency(term) > 0 ? [{ term, weight }] : variants(synonym.word, term, source, tuning).map((v) => ({ term: v.term, weight: weight * tuning.variantWeight }));
    const fresh = reach.filter((r) => !out.some((e) => e.term === r.term)).slice(0, 2);
    if (fresh.length === 0) continue;
    for (const r of fresh) out.push({ term: r.term, kind: 'synonym', weight: r.weight, via: synonym.word });
    if (++added >= tuning.synonymsPerWord) break;
  }
  return out;
}
