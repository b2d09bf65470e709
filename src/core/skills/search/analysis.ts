/**
 * Text analysis of skill search, given to MiniSearch as its `tokenize` and `processTerm`
 * and used again to read queries, so that text and query meet on the same terms:
 *
 * - `tokenize` splits into lowercase words: `camelCase` and `snake_case` names into
 *   their parts ("getUserInfo" → get, user, info), apostrophe suffixes dropped
 *   ("customer's" → customer), and a hyphenated word also whole ("e-mail" → e, mail,
 *   email; "on-call" → on, call, oncall), so either spelling finds it.
 * - `processTerm` drops stop words (`word-lists.ts`: function words and chat filler) and
 *   reduces a word to its light stem: irregular forms to their base ("paid" → pay), then
 *   inflection removed ("invoices", "invoiced", "invoicing" → invoic; "hire", "hired",
 *   "hiring" → hir). Derivation is left alone ("receivable" is not "received"): those
 *   relatives are found at query time, weaker (see `plan.ts`).
 *
 * An analyser also remembers how each stem was written (its shortest word), for reasons
 * that name what a query word was read as.
 */
import { baseForm, isStopWord, KEEP_WHOLE } from './word-lists.js';

/** Longest word kept (longer runs of letters are not words a person types). */
const MAX_WORD = 40;
/** What separates words: anything but letters, digits, apostrophes and hyphens. */
const SEPARATOR = /[^\p{L}\p{N}'’-]+/u;
const APOSTROPHE = /['’]/;
/** A lowercase letter before a capital ("getUser"), or a capital before a capitalised word ("HTTPServer"). */
const CAMEL_JOINT = /\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;
const CAMEL_SPLIT = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
const NUMBER = /^\p{N}+$/u;

/**
 * The lowercase words of `text`, in order, repeats included.
 * @example tokenize("Send the customer's e-mail via sendMail") // → send, the, customer, e, mail, email, via, send, mail
 */
export function tokenize(text: string): string[] {
  return splitWords(text, true);
}

/** The words of `text` as {@link tokenize} finds them, hyphenated words whole too when `joined`. */
export function splitWords(text: string, joined = false): string[] {
  const words: string[] = [];
  for (let token of text.split(SEPARATOR)) {
    if (token.length === 0) continue;
    // "customer's" → customer; quotes around a word go.
    if (APOSTROPHE.test(token)) token = token.replace(/^['’]+/, '').replace(/['’].*$/, '');
    if (!token.includes('-')) {
      pushWord(words, token);
      continue;
    }
    const parts = token.split('-').filter((part) => part.length > 0);
    for (const part of parts) pushWord(words, part);
    if (joined && parts.length > 1) {
      const whole = parts.join('').toLowerCase();
      if (whole.length <= MAX_WORD) words.push(whole);
    }
  }
  return words;
}

function pushWord(words: string[], token: string): void {
  if (token.length === 0) return;
  const lower = token.toLowerCase();
  if (lower === token || !CAMEL_JOINT.test(token)) {
    if (lower.length <= MAX_WORD) words.push(lower);
    return;
  }
  for (const piece of token.split(CAMEL_SPLIT)) {
    if (piece.length > 0 && piece.length <= MAX_WORD) words.push(piece.toLowerCase());
  }
}

const VOWEL = /[aeiouy]/;
const DOUBLE = /([bdfgkmnprt])\1$/;

/**
 * The light stem of a lowercase content word: plurals (-s, -es, -ies), past and
 * progressive forms (-ed, -ing, with doubled consonants undone) and a final silent "e"
 * removed, so "invoice", "invoices", "invoiced" and "invoicing" meet at `invoic`.
 */
export function lightStem(word: string): string {
  if (word.length <= 3 || KEEP_WHOLE.has(word) || /\d/.test(word)) return dropE(word);
  let stem = word;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (/(ss|sh|ch|x|zz)es$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(ss|us|is|ous)$/.test(stem)) stem = stem.slice(0, -1);
  else if (stem.endsWith('ied') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('ed') && VOWEL.test(stem.slice(0, -2))) stem = undouble(stem.slice(0, -2));
  else if (stem.endsWith('ing') && stem.length > 5 && VOWEL.test(stem.slice(0, -3))) stem = undouble(stem.slice(0, -3));
  return dropE(stem);
}

/** `planned` → `plann` → `plan`; `filled` keeps its double l (no rule for l and s). */
function undouble(stem: string): string {
  return DOUBLE.test(stem) ? stem.slice(0, -1) : stem;
}

/** `invoice` and `invoic(ing)` meet without a dictionary: a final e after a consonant goes. */
function dropE(stem: string): string {
  return stem.length >= 3 && stem.endsWith('e') && !/[aeiou]e$/.test(stem) ? stem.slice(0, -1) : stem;
}

/** Distinct stems kept per analyser before its memo starts again (a bound on its memory). */
const MEMO_SIZE = 200_000;

/** The stem of a lowercase word, or null for a stop word or a one-letter word. */
export function stemOf(word: string): string | null {
  if (word.length < 2 || isStopWord(word)) return null;
  return NUMBER.test(word) ? word : lightStem(baseForm(word));
}

/** The stemming of one index (its memo, and how each stem was written). */
export interface Analyzer {
  /** MiniSearch's `processTerm` at indexing: {@link stemOf}, remembering how the stem was written. */
  processTerm(word: string): string | null;
  /** The shortest word seen with this stem (for reasons); the stem itself when none was seen. */
  surfaceOf(stem: string): string;
  /** The remembered spellings, for the index snapshot. */
  surfaces(): Record<string, string>;
  /** Restores remembered spellings from a snapshot. */
  restore(surfaces: Record<string, string>): void;
}

/** Creates an analyser; its `processTerm` is what an index is built (and restored) with. */
export function createAnalyzer(): Analyzer {
  const memo = new Map<string, string | null>();
  const written = new Map<string, string>();
  const processTerm = (word: string): string | null => {
    const known = memo.get(word);
    if (known !== undefined) return known;
    const stem = stemOf(word);
    if (memo.size >= MEMO_SIZE) memo.clear();
    memo.set(word, stem);
    if (stem !== null) {
      const seen = written.get(stem);
      if (seen === undefined || word.length < seen.length || (word.length === seen.length && word < seen)) written.set(stem, word);
    }
    return stem;
  };
  return {
    processTerm,
    surfaceOf: (stem) => written.get(stem) ?? stem,
    surfaces: () => Object.fromEntries(written),
    restore(surfaces) {
      for (const [stem, word] of Object.entries(surfaces)) if (typeof word === 'string') written.set(stem, word);
    },
  };
}

/** A content word of a query with its stem. */
export interface QueryWord {
  /** The word as written, lowercase. */
  word: string;
  stem: string;
}

/**
 * The content words of a query, the first occurrence of each stem, at most `max`.
 * @example queryWords('Can you help me chase overdue invoices?') // → chase, overdue, invoices
 */
export function queryWords(query: string, max = 40): QueryWord[] {
  const seen = new Set<string>();
  const out: QueryWord[] = [];
  for (const word of splitWords(query)) {
    const stem = stemOf(word);
    if (stem === null || seen.has(stem)) continue;
    seen.add(stem);
    out.push({ word, stem });
    if (out.length >= max) break;
  }
  return out;
}
