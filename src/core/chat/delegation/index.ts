/**
 * Delegation (API.md §10): a running turn hands a task to another node of its
 * structure, as an ordinary turn of that node. The rules that refuse one (rules.ts),
 * the delegator that starts and reports them (delegator.ts) and what they reason about
 * (types.ts).
 */
export * from './delegator.js';
export * from './rules.js';
export * from './types.js';
