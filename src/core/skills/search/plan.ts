/**
 * Query planning: the content words of a query ("concepts"), each weighed by how rare it
 * is in the library (IDF scaled to 0–1), and the indexed terms each is searched through,
 * each with the weight MiniSearch gives it (`boostTerm`):
 *
 * - its own stem (`exact`, weight 1);
 * - two query words written apart that the library writes as one ("on board" →
 *   onboard, "log in" → login: `compound`, weight 1);
 * - stems derived from the same root ("receivable" for "received": `variant`);
 * - for a word the library lacks, or the last word (it may be unfinished), longer terms
 *   it is the start of ("dedup" → deduplication: `prefix`);
 * - for a word the library lacks and the dictionary does not know, the terms one or two
 *   edits away (a typo: `fuzzy`; "incidnet" → incident). A real word the library lacks
 *   ("teach", "concepts") is not read as another one ("tech", "concert"): it asks for
 *   something the library does not have;
 * - WordNet synonyms weighed by how often their sense is meant (`synonym`).
 *
 * No word is left out for being common: a word every skill has still counts, only with
 * a small weight. Prefixes, typos and synonyms weigh less than the word itself, so exact
 * evidence wins when both compete.
 */
import { stemmer } from 'stemmer';
import { queryWords, splitWords, stemOf } from './analysis.js';
import { boundedEditDistance } from './edit-distance.js';
import { negatedStems } from './negation.js';
import type { SearchTuning } from './tuning.js';
import type { SynonymSource } from './wordnet.js';

/** How an indexed term was reached from a query word. */
export type MatchKind = 'exact' | 'compound' | 'variant' | 'prefix' | 'fuzzy' | 'synonym';

/** One indexed term a query word is searched through. */
export interface Expansion {
  /** The indexed term (a stem). */
  term: string;
  kind: MatchKind;
  /** Score multiplier (1 for the word itself). */
  weight: number;
  /** For a compound: the query's two words as typed ("on board" for onboard). */
  phrase?: string;
  /** For a synonym: the dictionary's word. */
  via?: string;
  /** For a dictionary word read as a typo: the weight it earns in a skill that also matches another query word. */
  inContext?: number;
}

/** One content word of the query. */
export interface Concept {
  /** The word as typed, lowercase. */
  word: string;
  stem: string;
  /** Scaled IDF (0–1) of what it matched; `unknownWeight` or `unknownWordWeight` when it matched nothing. */
  weight: number;
  /** False when no skill holds the word or anything it expands to. */
  known: boolean;
  expansions: Expansion[];
}

/** The analysed query. */
export interface QueryPlan {
  concepts: Concept[];
  /** Sum of the heaviest concept weights: the denominator of support. */
  totalWeight: number;
  /** Every term searched, with its weight (the largest when two words reach it) and the concepts reaching it. */
  terms: Map<string, { weight: number; concepts: number[] }>;
  /** Stems of the query's words and of what they expand to. */
  stems: Set<string>;
  /** Stems a skill's name may hold that go against the query: antonyms of its words, words it negates. */
  contrasts: Map<string, Contrast>;
  /** The query's words as written, lower case, one space apart and around (to find a phrase said whole). */
  phrase: string;
  /** How many words the query has as written. */
  wordCount: number;
}

/** Why a stem in a skill's name goes against the query. */
export interface Contrast {
  /** The query word's stem it is opposite to (an antonym), or the stem itself when negated. */
  of: string;
  /** True when the query negates the word ("not renew"); false for an antonym of a query word. */
  negated: boolean;
}

/** What planning reads of the index. */
export interface TermSource {
  /** Live skills (the IDF denominator). */
  documentCount: number;
  documentFrequency(term: string): number;
  termsWithPrefix(prefix: string, max: number): string[];
  termsNear(term: string, maxDistance: number): { term: string; distance: number }[];
  /** How the library writes a term (its shortest word with that stem). */
  surfaceOf(term: string): string;
  /** The synonym source, created on first use. */
  synonyms(): SynonymSource | undefined;
}

const NUMBER = /^\p{N}+$/u;

/** Smoothed IDF of a term held by `df` of `n` documents. */
export function idf(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** IDF scaled to 0–1 by the IDF of a term no document has, so thresholds hold at any library size. */
export function termWeight(df: number, n: number): number {
  return idf(df, n) / idf(0, n);
}

/** Porter stems group derived words ("collect" for collection and collector). */
const porterMemo = new Map<string, string>();
function porterOf(stem: string): string {
  let root = porterMemo.get(stem);
  if (root === undefined) {
    root = stemmer(stem);
    if (porterMemo.size >= 50_000) porterMemo.clear();
    porterMemo.set(stem, root);
  }
  return root;
}

/** Analyses `query` against the index. */
export function planQuery(query: string, source: TermSource, tuning: SearchTuning): QueryPlan {
  const n = Math.max(source.documentCount, tuning.minCorpusSize);
  const words = queryWords(query, tuning.maxQueryWords);
  const own = new Set(words.map((w) => w.stem));
  const compounds = compoundsOf(query, own, source);
  const names = namesIn(query);
  const concepts: Concept[] = words.map(({ word, stem }, i) => {
    const expansions = expand(word, stem, i === words.length - 1, source, tuning);
    // A number is what a request is about only at times ("form 1099"); mostly it is an amount.
    const scale = NUMBER.test(word) ? tuning.numberWeight : 1;
    if (scale !== 1) for (const expansion of expansions) expansion.weight *= scale;
    for (const compound of compounds.get(stem) ?? []) if (!expansions.some((e) => e.term === compound.term)) expansions.push(compound);
    const exact = expansions.find((e) => e.kind === 'exact');
    let weight: number;
    if (exact) weight = termWeight(source.documentFrequency(exact.term), n);
    else if (expansions.length > 0) weight = Math.max(...expansions.map((e) => termWeight(source.documentFrequency(e.term), n)));
    else if (names.has(word)) weight = tuning.unknownNameWeight;
    else weight = isEnglish(word, source) ? tuning.unknownWordWeight : tuning.unknownWeight;
    return { word, stem, weight: weight * scale, known: expansions.length > 0, expansions };
  });
  const terms: QueryPlan['terms'] = new Map();
  const stems = new Set(own);
  concepts.forEach((concept, c) => {
    for (const expansion of concept.expansions) {
      stems.add(expansion.term);
      const held = terms.get(expansion.term);
      if (!held) terms.set(expansion.term, { weight: expansion.weight, concepts: [c] });
      else {
        held.weight = Math.max(held.weight, expansion.weight);
        if (!held.concepts.includes(c)) held.concepts.push(c);
      }
    }
  });
  const top = concepts
    .map((c) => c.weight)
    .sort((a, b) => b - a)
    .slice(0, tuning.coverageWords);
  return { concepts, totalWeight: top.reduce((sum, w) => sum + w, 0), terms, stems, contrasts: contrastsOf(query, words, source, tuning), phrase: phraseOf(query), wordCount: splitWords(query).length };
}

/** Words between quotes, or capitalised where a sentence does not start ("in Santa Rosa", "by David Guetta"). */
const QUOTED = /["“'‘`]([^"“”'‘’`]{1,80})["”'’`]/g;

/**
 * The words a query writes as names: capitalised inside a sentence, or quoted. A name
 * the library lacks is what the request is about an instance of (a city, a person, a
 * title), not a topic the library is missing.
 */
function namesIn(query: string): Set<string> {
  const names = new Set<string>();
  for (const match of query.matchAll(QUOTED)) for (const word of splitWords(match[1] as string)) names.add(word);
  for (const sentence of query.split(/[.!?\n]+/)) {
    const words = sentence.split(/[^\p{L}\p{N}'’-]+/u).filter((word) => word.length > 0);
    for (const word of words.slice(1)) if (/\p{Lu}/u.test(word)) for (const piece of splitWords(word)) names.add(piece);
  }
  return names;
}

/**
 * Adjacent words of the query that the library has as one word ("on board" → onboard,
 * stop words included), keyed by the stem of the pair's last content word, whose concept
 * the compound joins: the user wrote the word, only with a space in it.
 */
function compoundsOf(query: string, own: ReadonlySet<string>, source: TermSource): Map<string, Expansion[]> {
  const out = new Map<string, Expansion[]>();
  const tokens = splitWords(query);
  for (let i = 0; i + 1 < tokens.length; i++) {
    const first = tokens[i] as string;
    const second = tokens[i + 1] as string;
    const term = stemOf(first + second);
    if (term === null || own.has(term) || source.documentFrequency(term) === 0) continue;
    const owner = stemOf(second) ?? stemOf(first);
    if (owner === null || !own.has(owner)) continue;
    const list = out.get(owner) ?? [];
    list.push({ term, kind: 'compound', weight: 1, phrase: `${first} ${second}` });
    out.set(owner, list);
  }
  return out;
}

/** The words the query negates, and the antonyms of its words that it does not contain itself. */
function contrastsOf(query: string, words: { word: string; stem: string }[], source: TermSource, tuning: SearchTuning): Map<string, Contrast> {
  const contrasts = new Map<string, Contrast>();
  if (tuning.contrastPenalty >= 1 && tuning.oppositePenalty >= 1) return contrasts;
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

function expand(word: string, stem: string, last: boolean, source: TermSource, tuning: SearchTuning): Expansion[] {
  const out: Expansion[] = [];
  const known = source.documentFrequency(stem) > 0;
  if (known) out.push({ term: stem, kind: 'exact', weight: 1 });
  // A word the library lacks is first read as unfinished or misspelt ("payrol" → payroll), then by its relatives.
  if (known) out.push(...variants(stem, source, tuning));
  if ((!known || (last && tuning.prefixLastWord)) && stem.length >= tuning.prefixMinLength) {
    const found = source
      .termsWithPrefix(stem, 200)
      .filter((term) => !out.some((e) => e.term === term))
      .map((term) => ({ term, df: source.documentFrequency(term) }))
      .filter((hit) => hit.df > 0)
      .sort((a, b) => b.df - a.df)
      .slice(0, tuning.prefixExpansions);
    // The start of a word the library lacks is an unfinished or misspelt word: a correction.
    for (const hit of found) out.push({ term: hit.term, kind: known ? 'prefix' : 'fuzzy', weight: known ? tuning.prefixWeight : tuning.fuzzyWeight });
  }
  if (!known) for (const variant of variants(stem, source, tuning)) if (!out.some((e) => e.term === variant.term)) out.push(variant);
  if (out.length > 0 || word.length < tuning.fuzzyMinLength || /\d/.test(word)) return withSynonyms(word, stem, out, source, tuning);
  // A word the dictionary knows is mostly a request for something the library lacks
  // ("teach" is not "tech"): read as a typo only weakly, and fully only by a skill that
  // also matches another word of the query ("costumer refund").
  const english = isEnglish(word, source);

  // Edits counted with a swap of two neighbours as one ("incidnet" → incident), which
  // MiniSearch's Levenshtein counts as two: its candidates are taken one edit wider, and
  // measured again on the stems and on the words as written ("clsoe" keeps its e, "close"
  // does not: as written they are one swap apart).
  const max = word.length >= tuning.fuzzyTwoEditsLength ? 2 : 1;
  const near = new Map<string, number>();
  const wide = word.length >= 4 ? max + 1 : max;
  for (const probe of new Set([stem, word.endsWith('e') ? word.slice(0, -1) : word])) {
    for (const hit of source.termsNear(probe, wide)) {
      const distance = Math.min(boundedEditDistance(stem, hit.term, max), boundedEditDistance(word, source.surfaceOf(hit.term), max));
      if (distance <= max && distance < (near.get(hit.term) ?? Infinity)) near.set(hit.term, distance);
    }
  }
  const typos = [...near]
    .map(([term, distance]) => ({ term, distance, df: source.documentFrequency(term) }))
    .filter((hit) => hit.df > 0 && hit.term[0] === stem[0])
    .sort((a, b) => a.distance - b.distance || b.df - a.df);
  const nearest = typos[0]?.distance;
  for (const typo of typos) {
    if (typo.distance !== nearest || out.length >= 2) break;
    const weight = tuning.fuzzyWeight / typo.distance;
    out.push(english ? { term: typo.term, kind: 'fuzzy', weight: tuning.fuzzyWordWeight / typo.distance, inContext: weight } : { term: typo.term, kind: 'fuzzy', weight });
  }
  return withSynonyms(word, stem, out, source, tuning);
}

/** Endings that make a word of another kind from the same root (on light stems: "collect" → collection, "discover" → discovery). */
const DERIVATIONS = ['er', 'or', 'y', 'ion', 'ation', 'ment', 'al', 'ive', 'able', 'ity', 'ance', 'ence', 'ist', 'ism'];

/**
 * Stems of words derived from the same root, weaker than the word itself, most frequent
 * first: those with the same Porter stem ("receivable" for "received"), and those that
 * add or drop one derivational ending ("discovery" and "discoverer" for "discover",
 * "collect" for "collection"), which Porter's stemmer does not always bring together.
 */
function variants(stem: string, source: TermSource, tuning: SearchTuning): Expansion[] {
  if (tuning.variantWeight <= 0 || /\d/.test(stem)) return [];
  const root = porterOf(stem);
  const bases = [stem, ...DERIVATIONS.filter((end) => stem.endsWith(end) && stem.length - end.length >= 4).map((end) => stem.slice(0, -end.length))];
  const related = (term: string): boolean =>
    porterOf(term) === root || bases.some((base) => term === base || DERIVATIONS.some((end) => term === base + end));
  const prefix = [root, ...bases].reduce((shortest, p) => (p.length < shortest.length ? p : shortest)).slice(0, -1);
  if (prefix.length < 3) return [];
  return source
    .termsWithPrefix(prefix, 200)
    .concat(source.documentFrequency(prefix) > 0 ? [prefix] : [])
    // A plural kept whole ("news") is not a relative of its singular; a numbered name ("function2") is not a word.
    .filter((term) => term !== stem && term !== `${stem}s` && !/\d/.test(term) && related(term))
    .map((term) => ({ term, df: source.documentFrequency(term) }))
    .filter((hit) => hit.df > 0)
    .sort((a, b) => b.df - a.df)
    .slice(0, tuning.prefixExpansions)
    .map((hit) => ({ term: hit.term, kind: 'variant' as const, weight: tuning.variantWeight }));
}

/** True when the dictionary knows `word` (false without one). */
function isEnglish(word: string, source: TermSource): boolean {
  return source.synonyms()?.knows?.(word) ?? false;
}

/** Adds WordNet synonyms of the word (and of what a typo was read as), weighed by their sense's share. */
function withSynonyms(word: string, stem: string, out: Expansion[], source: TermSource, tuning: SearchTuning): Expansion[] {
  if (tuning.synonymsPerWord <= 0 || (tuning.synonymMode === 'unknown' && out.length > 0)) return out;
  const synonyms = source.synonyms();
  if (!synonyms) return out;
  let added = 0;
  for (const synonym of synonyms.synonyms(word)) {
    if (synonym.weight < tuning.minSenseShare) break;
    const term = stemOf(synonym.word);
    if (term === null || term === stem) continue;
    const weight = tuning.synonymWeight * synonym.weight;
    // The synonym itself, or else a word derived from it ("resign" → resignation).
    const reach = source.documentFrequency(term) > 0 ? [{ term, weight }] : variants(term, source, tuning).map((v) => ({ term: v.term, weight: weight * tuning.variantWeight }));
    const fresh = reach.filter((r) => !out.some((e) => e.term === r.term)).slice(0, 2);
    if (fresh.length === 0) continue;
    for (const r of fresh) out.push({ term: r.term, kind: 'synonym', weight: r.weight, via: synonym.word });
    if (++added >= tuning.synonymsPerWord) break;
  }
  return out;
}

/** `text`'s words as written, lower case, one space apart and around: ` we have a sev1 `. */
export function phraseOf(text: string): string {
  return ` ${splitWords(text).map((word) => word.toLowerCase()).join(' ')} `;
}
