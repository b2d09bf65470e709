/**
 * Skill search: text analysis (stems, stop words, irregular verbs), the index (stems-only
 * postings in typed arrays, a lexicon for prefix and typo matching), BM25F ranking with
 * triggers, successors of deprecated skills and a no-match decision, explanations, the
 * binary snapshot, and WordNet synonyms for words that match nothing.
 */
export * from './analyzer.js';
export * from './document.js';
export * from './engine.js';
export * from './explain.js';
export * from './snapshot.js';
export * from './stopwords.js';
export * from './tuning.js';
export * from './wordnet.js';
export { idf, termWeight, type Concept, type Expansion, type MatchKind, type QueryPlan } from './query.js';
export { boundedEditDistance } from './edit-distance.js';
