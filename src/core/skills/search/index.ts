/**
 * Skill search: one MiniSearch over the library (`skill-index.ts`) with org's analysis as
 * its tokenizer and term processor (`analysis.ts`), queries read into weighted terms
 * (`plan.ts`: stems, variants, compounds, prefixes, typos, WordNet synonyms), and what
 * MiniSearch finds ranked and decided on (`ranking.ts`: coverage, triggers and names,
 * successors of deprecated skills, the no-match decision), with reasons and explanations.
 */
export { createAnalyzer, lightStem, queryWords, splitWords, stemOf, tokenize, type Analyzer, type QueryWord } from './analysis.js';
export { documentId, successorHints, toSearchDocument, type SearchDocument, type StoredSkill } from './document.js';
export { explainSearch, type ExplainedCandidate, type ExplainedWord, type SearchExplanation } from './explain.js';
export { idf, planQuery, termWeight, type Concept, type Expansion, type MatchKind, type QueryPlan } from './plan.js';
export { createScopedIndex, loadScopedIndex, type ScopedSkillIndex } from './scoped-index.js';
export { createSkillIndex, loadSkillIndex, type SearchLookup, type SkillExplainOptions, type SkillIndex, type SkillIndexOptions, type SkillSearchOptions } from './skill-index.js';
export { DEFAULT_TUNING, resolveTuning, SEARCH_FIELDS, type SearchField, type SearchTuning } from './tuning.js';
export { isStopWord } from './word-lists.js';
export { createWordNet, openSenseIndex, wordnetDictDir, type Synonym, type SynonymSource, type WordNet, type WordNetOptions } from './wordnet.js';
