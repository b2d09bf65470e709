/**
 * Skill search: text analysis (stems, stop words, irregular verbs), WordNet synonyms,
 * the MiniSearch-backed index with its ranking and relevance floor, and the offline
 * evaluation used to tune it.
 */
export * from './analyzer.js';
export * from './document.js';
export * from './engine.js';
export * from './eval.js';
export * from './query-plan.js';
export * from './rank.js';
export * from './stopwords.js';
export * from './term-stats.js';
export * from './tuning.js';
export * from './wordnet.js';
