/**
 * Text analysis shared by indexing and querying: split into words, drop stop words,
 * reduce each word to its Porter stem (irregular verbs first to their base form).
 * Index and query go through the same steps, so "invoices", "invoicing" and
 * "invoiced" all meet at `invoic`. The index also keeps each word's surface form, so
 * a typo can be matched fuzzily against the word as written ("incidnet" → "incident")
 * even where the stems are far apart.
 */
import { stemmer } from 'stemmer';
import { baseForm } from './irregular.js';
import { isStopWord } from './stopwords.js';

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
const MAX_WORD = 40;
const NUMBER = /^\p{N}+$/u;

/** Lowercase words of `text`, in order (apostrophe suffixes such as `'s` removed). */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0].replace(/['’].*$/, '');
    if (word.length > 0 && word.length <= MAX_WORD) words.push(word);
  }
  return words;
}

const stemCache = new Map<string, string | null>();
const STEM_CACHE_SIZE = 100_000;

/** The stem of one word, or null for stop words and one-letter words (memoised). */
export function stemOf(word: string): string | null {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  let stem: string | null;
  if (word.length < 2 || isStopWord(word)) stem = null;
  else if (NUMBER.test(word)) stem = word;
  else stem = stemmer(baseForm(word));
  if (stemCache.size >= STEM_CACHE_SIZE) stemCache.clear();
  stemCache.set(word, stem);
  return stem;
}

/** The index terms of one word: its stem, plus the word itself when it differs. */
export function indexTerms(word: string): string[] | null {
  const stem = stemOf(word);
  if (stem === null) return null;
  return stem === word ? [stem] : [stem, word];
}

/** A content word of a query with its stem. */
export interface QueryWord {
  /** The word as typed, lowercase. */
  word: string;
  stem: string;
}

/**
 * The content words of a query, first occurrence of each stem only.
 * @example queryWords('Can you help me chase overdue invoices?') // → overdue, invoices
 */
export function queryWords(query: string, max = 32): QueryWord[] {
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const word of tokenize(query)) {
    const stem = stemOf(word);
    if (stem === null || seen.has(stem)) continue;
    seen.add(stem);
    out.push({ word, stem });
    if (out.length >= max) break;
  }
  return out;
}

/** Adds the distinct index terms of a text to `into` (used to keep document frequencies). */
export function distinctTerms(text: string, into = new Set<string>()): Set<string> {
  for (const word of tokenize(text)) {
    for (const term of indexTerms(word) ?? []) into.add(term);
  }
  return into;
}
