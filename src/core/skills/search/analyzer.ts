/**
 * Text analysis shared by indexing and querying: split into lowercase words, drop stop
 * words, reduce each word to its light stem (irregular verbs first to their base form,
 * then inflection removed: see `inflection.ts`). Index and query go through the same
 * steps, so "invoices", "invoicing" and "invoiced" all meet at `invoic`. The index keeps
 * only stems in its postings; the words as written go to a separate lexicon (word →
 * stem) used for prefix and typo matching. Porter stems (`porterOf`) group the stems of
 * derived words ("receivable", "received") for the query's weaker variant matches.
 */
import { stemmer } from 'stemmer';
import { lightStem } from './inflection.js';
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

/** The stem of one lowercase word, or null for stop words and one-letter words (memoised). */
export function stemOf(word: string): string | null {
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  let stem: string | null;
  if (word.length < 2 || isStopWord(word)) stem = null;
  else if (NUMBER.test(word)) stem = word;
  else stem = lightStem(baseForm(word));
  if (stemCache.size >= STEM_CACHE_SIZE) stemCache.clear();
  stemCache.set(word, stem);
  return stem;
}

const porterCache = new Map<string, string>();

/** The Porter stem of a stem or word: what derived words share ("collect" for "collection" and "collector"). */
export function porterOf(stem: string): string {
  let porter = porterCache.get(stem);
  if (porter === undefined) {
    porter = stemmer(stem);
    if (porterCache.size >= STEM_CACHE_SIZE) porterCache.clear();
    porterCache.set(stem, porter);
  }
  return porter;
}

/** A content word with its stem. */
export interface AnalysedWord {
  /** The word as written, lowercase. */
  word: string;
  stem: string;
}

/** The content words of `text` in order, repeats included (what a field indexes). */
export function analyse(text: string): AnalysedWord[] {
  const out: AnalysedWord[] = [];
  for (const word of tokenize(text)) {
    const stem = stemOf(word);
    if (stem !== null) out.push({ word, stem });
  }
  return out;
}

/**
 * The content words of a query, first occurrence of each stem only, at most `max`.
 * @example queryWords('Can you help me chase overdue invoices?') // → chase, overdue, invoices
 */
export function queryWords(query: string, max = 40): AnalysedWord[] {
  const seen = new Set<string>();
  const out: AnalysedWord[] = [];
  for (const entry of analyse(query)) {
    if (seen.has(entry.stem)) continue;
    seen.add(entry.stem);
    out.push(entry);
    if (out.length >= max) break;
  }
  return out;
}
