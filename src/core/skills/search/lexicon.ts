/**
 * Lookups in a sorted list of words (the index's stems, or its lexicon of words as
 * written): exact position, the range of words starting with a prefix, and the words
 * one or two edits from a misspelt word. Sorted arrays cost nothing to load from a
 * snapshot and answer prefix queries with two binary searches.
 */
import { boundedEditDistance } from './edit-distance.js';

/** Position of `word` in the sorted `words`, or -1. */
export function findWord(words: readonly string[], word: string): number {
  let lo = 0;
  let hi = words.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = words[mid] as string;
    if (at === word) return mid;
    if (at < word) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** First position whose word is ≥ `word`. */
export function lowerBound(words: readonly string[], word: string): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((words[mid] as string) < word) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `[start, end)` of the words that start with `prefix` (the word itself included). */
export function prefixRange(words: readonly string[], prefix: string): [number, number] {
  const start = lowerBound(words, prefix);
  // U+FFFF sorts after every character a word can hold.
  return [start, lowerBound(words, `${prefix}\uffff`)];
}

/** A lexicon word close to a misspelt one. */
export interface FuzzyHit {
  index: number;
  distance: number;
}

/**
 * Words within `max` edits of `typed` that share its first letter (typos rarely hit the
 * first letter, and the restriction keeps the scan to one letter's words).
 */
export function fuzzyWords(words: readonly string[], typed: string, max: number): FuzzyHit[] {
  const [start, end] = prefixRange(words, typed[0] ?? '');
  const hits: FuzzyHit[] = [];
  for (let i = start; i < end; i++) {
    const word = words[i] as string;
    if (Math.abs(word.length - typed.length) > max) continue;
    const distance = boundedEditDistance(typed, word, max);
    if (distance <= max) hits.push({ index: i, distance });
  }
  return hits;
}
