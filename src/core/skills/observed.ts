/**
 * Search observation: a skill store whose searches (the API's and every chat message's
 * lookup) are timed and reported to listeners, for metrics and traces. The store itself
 * stays unaware of who listens.
 */
import type { SkillStore } from './store.js';

/** One finished search. */
export interface SearchRecord {
  query: string;
  structureId?: string;
  limit: number;
  /** How many matches it returned. */
  matches: number;
  durationMs: number;
}

/** Hears each finished search (synchronously; a listener's failure goes to `onError`). */
export type SearchListener = (record: SearchRecord) => void;

/** A store whose searches are reported, and the way to listen to them. */
export interface ObservedSkillStore {
  store: SkillStore;
  /** Adds a listener; returns its remover. */
  observe(listener: SearchListener): () => void;
}

/**
 * Wraps a store so each of its searches reports to the listeners added with `observe`.
 * Everything else reaches the inner store untouched (a proxy rather than a copy: the
 * store may still be loading, and its `loadReport` getter must not be read here).
 */
export function observeSkillSearches(inner: SkillStore, onError: (error: unknown) => void): ObservedSkillStore {
  const listeners = new Set<SearchListener>();
  const search: SkillStore['search'] = (query, request = {}) => {
    if (listeners.size === 0) return inner.search(query, request);
    const start = performance.now();
    const matches = inner.search(query, request);
    const record: SearchRecord = {
      query,
      ...(request.structureId ? { structureId: request.structureId } : {}),
      limit: request.limit ?? 5,
      matches: matches.length,
      durationMs: performance.now() - start,
    };
    for (const listener of listeners) {
      try {
        listener(record);
      } catch (error) {
        // A listener's failure is its own; the search answer stands.
        onError(error);
      }
    }
    return matches;
  };
  const store = new Proxy(inner, {
    get: (target, property) => (property === 'search' ? search : Reflect.get(target, property, target)),
  });
  return {
    store,
    observe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
