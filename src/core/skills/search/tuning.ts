/**
 * The knobs of skill search, with their defaults in one place. The defaults were
 * calibrated on the `dev` splits only: the library's own evaluation set
 * (`test/fixtures/search-eval/`) and the external one derived from a public benchmark
 * (`npm run eval:search` reports every split; the `test` splits are never tuned on).
 * Change them only with the evaluation running.
 */

/** The indexed fields of a skill: its name, tags (and category), triggers (example requests), summary and body. */
export const SEARCH_FIELDS = ['name', 'tags', 'triggers', 'summary', 'body'] as const;
/** One indexed field. */
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Ranking parameters of a skill index. */
export interface SearchTuning {
  /** MiniSearch field boosts. */
  boosts: Record<SearchField, number>;
  /** MiniSearch's BM25+ parameters: term-frequency saturation, length normalisation, lower bound of one occurrence. */
  bm25: { k: number; b: number; d: number };
  /** Weight of a word derived from the same root as the query word ("receivable" for "received"). */
  variantWeight: number;
  /** Weight of a longer term a query word is the start of ("dedup" → deduplication). */
  prefixWeight: number;
  /** Also read the last query word as the start of longer words when the library has it (it may be unfinished). */
  prefixLastWord: boolean;
  /** Shortest stem also read as a prefix. */
  prefixMinLength: number;
  /** Most terms a word expands to as a prefix or a variant (the most frequent first). */
  prefixExpansions: number;
  /** Weight of a misspelt word read as a term one edit away (halved at two edits). */
  fuzzyWeight: number;
  /** Weight of a dictionary word the library lacks read as a typo, unless the skill matches another query word too. */
  fuzzyWordWeight: number;
  /** Shortest unknown word read as a typo (3 catches "dwn" → down). */
  fuzzyMinLength: number;
  /** Words of at least this length may be two edits away; shorter ones one edit. */
  fuzzyTwoEditsLength: number;
  /** Weight of a WordNet synonym, times the share of the word's uses that carry the synonym's sense. */
  synonymWeight: number;
  /** Synonyms of every query word (`always`), or only of words the library lacks, as such or as variants (`unknown`). */
  synonymMode: 'always' | 'unknown';
  /** Senses used less often than this share of a word's uses give no synonyms ("fire" → dismiss). */
  minSenseShare: number;
  /** Synonyms tried per query word. */
  synonymsPerWord: number;
  /** Score multiplier is coverage^coveragePower (coverage: IDF-weighted share of the query's known words a skill matches). */
  coveragePower: number;
  /** Score multiplier is also (number of query words matched)^matchedWordsPower (MiniSearch's own multiplier, at 1, counts matched terms). */
  matchedWordsPower: number;
  /** Bonus (× the best score) when the query contains one of a skill's triggers (its content words, in any order). */
  triggerBonus: number;
  /** Bonus (× the top score) when the query holds one of the skill's triggers of two words or more whole, word for word. */
  wholeTriggerBonus: number;
  /** The least share of the query's words such a trigger must be for that bonus. */
  wholeTriggerShare: number;
  /** Bonus (× the best score) when the query contains every content word of the skill's name. */
  nameBonus: number;
  /** Bonus (× the best score) by the share of the summary's content words the query holds (IDF-weighted, squared). */
  summaryBonus: number;
  /** Bonus (× the best score) when the query has the name's first word, its action ("pay" vs "chase" invoices). */
  actionBonus: number;
  /** Bonus (× the best score) for the query's words found as written in the name, tags or triggers. */
  surfaceBonus: number;
  /** Score multiplier of a skill whose name holds a word the query negates ("did not renew" → "Renew a contract"). */
  contrastPenalty: number;
  /** Score multiplier of a skill whose name holds the opposite of a query word ("hire" → "Fire an employee"). */
  oppositePenalty: number;
  /** Candidates re-scored with the trigger and name features (the rest keep MiniSearch's order). */
  rerankDepth: number;
  /**
   * The no-match decision: a best match needs evidence (IDF-weighted matched words, 0–1
   * each, see `fieldCredit` and `kindCredit`) of at least `minEvidence + supportSlope ×
   * (1 − support)`, where support is the share of the query's weight it carries.
   */
  minEvidence: number;
  /** How much more evidence a best match needs per unit of the query it leaves unexplained. */
  supportSlope: number;
  /** The evidence enough for a best match that explains the whole query in its name, tags or triggers ("hiring"). */
  labelEvidence: number;
  /** The heaviest query words support is measured against (long chat messages are not penalised for length). */
  coverageWords: number;
  /** Weight of a query word no skill holds and the dictionary does not know (a name, a number, a typo). */
  unknownWeight: number;
  /** Weight of a name no skill holds (a word capitalised inside a sentence, or quoted: "in Santa Rosa"). */
  unknownNameWeight: number;
  /** Weight of an English word no skill holds ("passport"): what it asks for is missing. */
  unknownWordWeight: number;
  /** Evidence credit of a word by the most telling field it matched in. */
  fieldCredit: Record<SearchField, number>;
  /** Evidence credit of a word by how it matched: loose readings prove less than the word itself. */
  kindCredit: Record<'exact' | 'compound' | 'variant' | 'prefix' | 'fuzzy' | 'synonym', number>;
  /** A chat search whose best match carries less of the query than this is logged as a weak match (gap report). */
  weakSupport: number;
  /** Matches scoring below this share of the best are dropped. */
  relativeCut: number;
  /** Word weights are computed as if the library had at least this many skills. */
  minCorpusSize: number;
  /** Weight of a number in a query, relative to a word of the same rarity (mostly an amount, not a topic). */
  numberWeight: number;
  /** Content words of a query considered (the rest of a very long message is ignored). */
  maxQueryWords: number;
}

/** The calibrated defaults. */
export const DEFAULT_TUNING: SearchTuning = {
  boosts: { name: 1.125, tags: 1.875, triggers: 1.5, summary: 2, body: 1.33 },
  bm25: { k: 0.6, b: 0.7, d: 0.5 },
  variantWeight: 0.6,
  prefixWeight: 0.5,
  prefixLastWord: true,
  prefixMinLength: 4,
  prefixExpansions: 8,
  fuzzyWeight: 0.9,
  fuzzyWordWeight: 0.3,
  fuzzyMinLength: 3,
  fuzzyTwoEditsLength: 8,
  synonymWeight: 0.6,
  synonymMode: 'unknown',
  minSenseShare: 0.4,
  synonymsPerWord: 3,
  coveragePower: 1.33,
  matchedWordsPower: 0,
  triggerBonus: 0,
  wholeTriggerBonus: 1,
  wholeTriggerShare: 0.4,
  nameBonus: 0.15,
  summaryBonus: 0.2,
  actionBonus: 0,
  surfaceBonus: 0.6,
  contrastPenalty: 0.5,
  oppositePenalty: 0.25,
  rerankDepth: 30,
  minEvidence: 0.5,
  supportSlope: 0.1,
  labelEvidence: 0.3,
  coverageWords: 3,
  unknownWeight: 0.1,
  unknownWordWeight: 0.8,
  unknownNameWeight: 0.1,
  fieldCredit: { name: 1, tags: 1, triggers: 1, summary: 0.8, body: 0.5 },
  kindCredit: { exact: 1, compound: 1, variant: 0.6, prefix: 0.5, fuzzy: 0.9, synonym: 0.6 },
  weakSupport: 0.5,
  relativeCut: 0.1,
  minCorpusSize: 50,
  numberWeight: 1,
  maxQueryWords: 32,
};

/** Merges a partial tuning over the defaults (the per-field records member by member). */
export function resolveTuning(partial: Partial<SearchTuning> = {}): SearchTuning {
  return {
    ...DEFAULT_TUNING,
    ...partial,
    boosts: { ...DEFAULT_TUNING.boosts, ...partial.boosts },
    bm25: { ...DEFAULT_TUNING.bm25, ...partial.bm25 },
    fieldCredit: { ...DEFAULT_TUNING.fieldCredit, ...partial.fieldCredit },
    kindCredit: { ...DEFAULT_TUNING.kindCredit, ...partial.kindCredit },
  };
}
