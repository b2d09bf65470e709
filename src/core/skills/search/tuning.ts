/**
 * The knobs of skill search, with their defaults in one place. The defaults were
 * calibrated on the `dev` split of `test/fixtures/search-eval/` only (`npm run
 * eval:search` reports both splits; the `test` split is never tuned on). Change them
 * only with the evaluation running.
 */

/**
 * The indexed fields of a skill, in index order (a field is stored as its position):
 * `triggers` are the example requests of the front matter, `intro` the body before its
 * first section heading, `steps` the step titles, `body` the rest of the body.
 */
export const SEARCH_FIELDS = ['name', 'tags', 'triggers', 'summary', 'category', 'intro', 'steps', 'body'] as const;
/** One indexed field. */
export type SearchField = (typeof SEARCH_FIELDS)[number];
/** Position of each field in {@link SEARCH_FIELDS}. */
export const FIELD_INDEX: Readonly<Record<SearchField, number>> = Object.fromEntries(
  SEARCH_FIELDS.map((field, i) => [field, i]),
) as Record<SearchField, number>;

/** Ranking parameters of {@link createSkillSearchIndex}. */
export interface SearchTuning {
  /** Weight of a term occurrence per field (BM25F: weighted term frequencies are summed before saturation). */
  boosts: Record<SearchField, number>;
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25 length normalisation per field (0: none, 1: full). */
  b: Record<SearchField, number>;
  /** Weight of a word derived from the same root as the query word ("receivable" for "received"). */
  variantWeight: number;
  /** Weight of a query word matched as the prefix of a longer indexed word ("dedup" → "deduplication"). */
  prefixWeight: number;
  /**
   * Which query words are also matched as prefixes: `unknown` (only words the library
   * does not have as such), `last` (those and the last word, which may be unfinished), `always`.
   */
  prefixMode: 'unknown' | 'last' | 'always';
  /** Shortest query word that is also matched as a prefix. */
  prefixMinLength: number;
  /** Most indexed words one query word expands to as a prefix (the most frequent first). */
  prefixExpansions: number;
  /** Weight of a misspelt query word matched to an indexed word one or two edits away. */
  fuzzyWeight: number;
  /** Weight of a correction of a word the dictionary knows (a real word the library lacks is seldom a typo). */
  fuzzyWordWeight: number;
  /** Shortest unknown query word that is corrected (3 catches "dwn" → "down"). */
  fuzzyMinLength: number;
  /** Query words of at least this length may be two edits away; shorter ones one edit. */
  fuzzyTwoEditsLength: number;
  /** Weight of a WordNet synonym, times the share of the word's uses that carry the synonym's sense. */
  synonymWeight: number;
  /** Synonyms of every query word (`always`), or only of words the library does not have (`unknown`). */
  synonymMode: 'always' | 'unknown';
  /** Senses used less often than this share of a word's uses give no synonyms ("fire" → "dismiss"). */
  minSenseShare: number;
  /** Synonyms tried per unmatched query word. */
  synonymsPerWord: number;
  /** Score multiplier is coverage^coveragePower (coverage: IDF-weighted share of the query's words a skill matches). */
  coveragePower: number;
  /** Bonus (× the best score) when the query contains one of a skill's triggers (its content words, in any order). */
  triggerBonus: number;
  /** Bonus (× the best score) when the query contains every content word of the skill's name. */
  nameBonus: number;
  /** Bonus (× the best score) when the query has the name's first word, its action ("pay" vs "chase" invoices). */
  actionBonus: number;
  /** Bonus (× the best score) for the query's words found as written in the name, tags or triggers. */
  surfaceBonus: number;
  /**
   * Score multiplier of a skill whose name holds the opposite of a query word and not the
   * word itself ("hire" → "Terminate (fire) an employee", "open" → "Close a bank account").
   */
  contrastPenalty: number;
  /** Candidates re-scored with the trigger and name features (the rest keep their BM25 rank). */
  rerankDepth: number;
  /**
   * The no-match decision: a best match needs evidence (IDF-weighted matched words, 0–1
   * each, see `fieldCredit`) of at least `minEvidence + supportSlope × (1 − support)`,
   * where support is the share of the query's weight it carries. A query fully explained
   * by a skill's name or tags needs little ("podcast"); a partial match needs more.
   */
  minEvidence: number;
  /** How much more evidence a best match needs per unit of the query it leaves unexplained. */
  supportSlope: number;
  /** The heaviest query words coverage is measured against (long chat messages are not penalised for length). */
  coverageWords: number;
  /** Weight in coverage of a query word that no skill contains and the dictionary does not know (a name, a typo). */
  unknownWeight: number;
  /** Weight in coverage of an English word no skill contains ("passport"): what it asks for is missing. */
  unknownWordWeight: number;
  /**
   * Evidence credit of a word by the most telling field it matched in: a word in the name
   * or a trigger says more about what a skill is for than the same word in its body.
   */
  fieldCredit: Record<SearchField, number>;
  /** A chat search whose best match carries less of the query than this is logged as a weak match (gap report). */
  weakSupport: number;
  /** Matches scoring below this share of the best are dropped. */
  relativeCut: number;
  /** Word weights are computed as if the library had at least this many skills. */
  minCorpusSize: number;
  /** Content words of a query considered (the rest of a very long message is ignored). */
  maxQueryWords: number;
}

/** The calibrated defaults. */
export const DEFAULT_TUNING: SearchTuning = {
  boosts: { name: 2, tags: 2.5, triggers: 3, summary: 2, category: 1, intro: 1, steps: 1.5, body: 0.3 },
  k1: 2,
  b: { name: 0.5, tags: 0.3, triggers: 0.5, summary: 0.6, category: 0, intro: 0.75, steps: 0.6, body: 0.75 },
  variantWeight: 0.6,
  prefixWeight: 0.5,
  prefixMode: 'always',
  prefixMinLength: 4,
  prefixExpansions: 8,
  fuzzyWeight: 0.9,
  fuzzyWordWeight: 0.4,
  fuzzyMinLength: 3,
  fuzzyTwoEditsLength: 8,
  synonymWeight: 0.6,
  synonymMode: 'always',
  minSenseShare: 0.4,
  synonymsPerWord: 3,
  coveragePower: 1,
  triggerBonus: 0.5,
  nameBonus: 0.3,
  surfaceBonus: 1.2,
  actionBonus: 0.3,
  contrastPenalty: 0.5,
  rerankDepth: 30,
  minEvidence: 0.325,
  supportSlope: 0.45,
  coverageWords: 5,
  unknownWeight: 0.3,
  unknownWordWeight: 0.8,
  fieldCredit: { name: 1, tags: 1, triggers: 1, summary: 0.8, category: 0.6, intro: 0.6, steps: 0.7, body: 0.4 },
  weakSupport: 0.5,
  relativeCut: 0.1,
  minCorpusSize: 50,
  maxQueryWords: 32,
};

/** Merges a partial tuning over the defaults (the per-field records member by member). */
export function resolveTuning(partial: Partial<SearchTuning> = {}): SearchTuning {
  return {
    ...DEFAULT_TUNING,
    ...partial,
    boosts: { ...DEFAULT_TUNING.boosts, ...partial.boosts },
    b: { ...DEFAULT_TUNING.b, ...partial.b },
    fieldCredit: { ...DEFAULT_TUNING.fieldCredit, ...partial.fieldCredit },
  };
}
