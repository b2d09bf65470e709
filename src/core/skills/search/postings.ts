/**
 * The postings of the search index, stems only, in two parts:
 *
 * - the **base**: immutable typed arrays in compressed-row form. Term `t` (the t-th stem
 *   in sorted order) owns entries `offsets[t]` to `offsets[t+1]`; each entry is a
 *   document id and a packed `field << 13 | term frequency`. Entries are sorted by
 *   document, and the fields of one document are adjacent. A lexicon of the words as
 *   written (sorted) maps each word to its stem, for prefix and typo lookups.
 * - the **delta**: documents added since the base was built, appended to growable typed
 *   arrays and arranged in the same row form on demand, searched alongside the base until
 *   the next compaction folds them in.
 *
 * Compaction (`mergePostings`) drops removed documents and renumbers the rest; it is how
 * a cold start builds its base too (everything goes to the delta, then one merge).
 */
import { findWord } from './lexicon.js';

/** Bits of a packed entry that hold the term frequency. */
export const TF_BITS = 13;
const TF_MASK = (1 << TF_BITS) - 1;

/** Packs a field position and a term frequency into one entry value. */
export function packFieldTf(field: number, tf: number): number {
  return (field << TF_BITS) | Math.min(tf, TF_MASK);
}
/** Field position of a packed entry value. */
export const fieldOf = (packed: number): number => packed >>> TF_BITS;
/** Term frequency of a packed entry value. */
export const tfOf = (packed: number): number => packed & TF_MASK;

/** Postings in compressed-row form: row `t` owns entries `offsets[t]` to `offsets[t+1]`, sorted by document. */
export interface PostingRows {
  offsets: Uint32Array;
  docs: Uint32Array;
  fieldTf: Uint16Array;
  /** Documents per row (removed ones included until compaction). */
  df: Uint32Array;
}

/** The immutable part of the postings. */
export interface BasePostings extends PostingRows {
  /** Stems, sorted: row `t` is the postings of `terms[t]`. */
  terms: string[];
  /** Words as written, sorted. */
  words: string[];
  /** Term position of each word's stem. */
  wordStem: Uint32Array;
}

/** The base of an index with no documents (one offset, no entries): where a fresh index starts before the first compaction. */
export function emptyBase(): BasePostings {
  return { terms: [], offsets: new Uint32Array(1), docs: new Uint32Array(0), fieldTf: new Uint16Array(0), df: new Uint32Array(0), words: [], wordStem: new Uint32Array(0) };
}

/**
 * Postings of documents added since the last compaction, appended as (term, document,
 * field and frequency) triples in growable typed arrays, and arranged in rows on the
 * first search after a change (a counting sort: entries stay in document order).
 */
export class DeltaPostings {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  private termOf = new Uint32Array(1024);
  private docOf = new Uint32Array(1024);
  private packedOf = new Uint16Array(1024);
  private arranged: PostingRows | undefined;
  /** Word as written → stem. */
  readonly words = new Map<string, string>();
  private sortedWords: string[] | undefined;
  private sortedTerms: string[] | undefined;

  /** Number of entries held (a compaction trigger). */
  entries = 0;

  /** Adds the analysed fields of document `doc`: per field, stem → frequency, and the words seen. */
  add(doc: number, fields: readonly Map<string, number>[], words: Iterable<[string, string]>): void {
    fields.forEach((counts, field) => {
      for (const [stem, tf] of counts) {
        const id = this.rowOf(stem);
        if (this.entries === this.termOf.length) this.grow();
        this.termOf[this.entries] = id;
        this.docOf[this.entries] = doc;
        this.packedOf[this.entries] = packFieldTf(field, tf);
        this.entries++;
      }
    });
    this.arranged = undefined;
    for (const [word, stem] of words) {
      if (this.words.get(word) === stem) continue;
      this.words.set(word, stem);
      this.sortedWords = undefined;
    }
  }

  /** The rows of `stems`, new stems getting rows in order (a batch's stem table resolved once). */
  rowsOf(stems: readonly string[]): Uint32Array {
    const rows = new Uint32Array(stems.length);
    stems.forEach((stem, i) => {
      rows[i] = this.rowOf(stem);
    });
    return rows;
  }

  /** The row of `stem`, a new one (at the end) when the delta has not seen it. */
  private rowOf(stem: string): number {
    let id = this.ids.get(stem);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(stem, id);
      this.names.push(stem);
      this.sortedTerms = undefined;
    }
    return id;
  }

  /** Adds entries `from` to `to` of a batch for document `doc`: row `rows[entryStem[i]]`, value `entryPacked[i]`. */
  addEntries(doc: number, rows: Uint32Array, entryStem: Uint32Array, entryPacked: Uint16Array, from: number, to: number): void {
    while (this.entries + (to - from) > this.termOf.length) this.grow();
    for (let i = from; i < to; i++) {
      this.termOf[this.entries] = rows[entryStem[i] as number] as number;
      this.docOf[this.entries] = doc;
      this.packedOf[this.entries] = entryPacked[i] as number;
      this.entries++;
    }
    this.arranged = undefined;
  }

  /** Records a word as written and its stem (for prefix and typo lookups). */
  addWord(word: string, stem: string): void {
    if (this.words.get(word) === stem) return;
    this.words.set(word, stem);
    this.sortedWords = undefined;
  }

  /** Row of stem `term`, or -1. */
  termIndex(term: string): number {
    return this.ids.get(term) ?? -1;
  }

  /** The rows, one per stem in first-seen order (built on first use after a change). */
  rows(): PostingRows {
    if (this.arranged) return this.arranged;
    const count = this.names.length;
    const offsets = new Uint32Array(count + 1);
    for (let i = 0; i < this.entries; i++) {
      const next = (this.termOf[i] as number) + 1;
      offsets[next] = (offsets[next] as number) + 1;
    }
    for (let t = 0; t < count; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
    const fill = offsets.slice(0, count);
    const docs = new Uint32Array(this.entries);
    const fieldTf = new Uint16Array(this.entries);
    const df = new Uint32Array(count);
    const last = new Int32Array(count).fill(-1);
    for (let i = 0; i < this.entries; i++) {
      const t = this.termOf[i] as number;
      const at = fill[t] as number;
      fill[t] = at + 1;
      const doc = this.docOf[i] as number;
      docs[at] = doc;
      fieldTf[at] = this.packedOf[i] as number;
      if (last[t] !== doc) df[t] = (df[t] as number) + 1;
      last[t] = doc;
    }
    this.arranged = { offsets, docs, fieldTf, df };
    return this.arranged;
  }

  /** The delta's words, sorted (cached until the next add). */
  wordList(): string[] {
    this.sortedWords ??= [...this.words.keys()].sort();
    return this.sortedWords;
  }

  /** The delta's stems in row order (row `r` of {@link rows} is the postings of `termOrder()[r]`). */
  termOrder(): readonly string[] {
    return this.names;
  }

  /** The delta's stems, sorted (cached until the next add). */
  termList(): string[] {
    this.sortedTerms ??= [...this.names].sort();
    return this.sortedTerms;
  }

  private grow(): void {
    const size = this.termOf.length * 2;
    const grown = <T extends Uint32Array | Uint16Array>(array: T, make: (n: number) => T): T => {
      const next = make(size);
      next.set(array);
      return next;
    };
    this.termOf = grown(this.termOf, (n) => new Uint32Array(n));
    this.docOf = grown(this.docOf, (n) => new Uint32Array(n));
    this.packedOf = grown(this.packedOf, (n) => new Uint16Array(n));
  }
}

/** Folds the delta into a new base, keeping documents whose `remap` is ≥ 0 (renumbered to it). */
export function mergePostings(base: BasePostings, delta: DeltaPostings, remap: Int32Array): BasePostings {
  const deltaTerms = delta.termList();
  const rows = delta.rows();
  const capacity = base.docs.length + delta.entries;
  const docs = new Uint32Array(capacity);
  const fieldTf = new Uint16Array(capacity);
  const terms: string[] = [];
  const offsets: number[] = [0];
  const df: number[] = [];
  const oldToNew = new Int32Array(base.terms.length).fill(-1);
  let at = 0;
  let i = 0;
  let j = 0;
  while (i < base.terms.length || j < deltaTerms.length) {
    const a = base.terms[i];
    const b = deltaTerms[j];
    const term = b === undefined || (a !== undefined && a <= b) ? (a as string) : b;
    const start = at;
    let count = 0;
    let last = -1;
    if (a === term) {
      for (let k = base.offsets[i] as number; k < (base.offsets[i + 1] as number); k++) {
        const doc = remap[base.docs[k] as number] as number;
        if (doc < 0) continue;
        docs[at] = doc;
        fieldTf[at++] = base.fieldTf[k] as number;
        if (doc !== last) count++;
        last = doc;
      }
    }
    if (b === term) {
      const r = delta.termIndex(term);
      for (let k = rows.offsets[r] as number; k < (rows.offsets[r + 1] as number); k++) {
        const doc = remap[rows.docs[k] as number] as number;
        if (doc < 0) continue;
        docs[at] = doc;
        fieldTf[at++] = rows.fieldTf[k] as number;
        if (doc !== last) count++;
        last = doc;
      }
      j++;
    }
    if (a === term) i++;
    if (at === start) continue;
    if (a === term) oldToNew[i - 1] = terms.length;
    terms.push(term);
    offsets.push(at);
    df.push(count);
  }

  const wordMap = new Map<string, number>();
  base.words.forEach((word, w) => {
    const stem = oldToNew[base.wordStem[w] as number] as number;
    if (stem >= 0) wordMap.set(word, stem);
  });
  for (const [word, stem] of delta.words) {
    const t = findWord(terms, stem);
    if (t >= 0) wordMap.set(word, t);
  }
  const words = [...wordMap.keys()].sort();
  const wordStem = Uint32Array.from(words, (word) => wordMap.get(word) as number);
  return {
    terms,
    offsets: Uint32Array.from(offsets),
    docs: docs.slice(0, at),
    fieldTf: fieldTf.slice(0, at),
    df: Uint32Array.from(df),
    words,
    wordStem,
  };
}

/** Entries `[start, end)` of document `doc` in row `t` (empty when absent). */
export function baseEntriesOf(base: PostingRows, t: number, doc: number): [number, number] {
  const from = base.offsets[t] as number;
  const to = base.offsets[t + 1] as number;
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((base.docs[mid] as number) < doc) lo = mid + 1;
    else hi = mid;
  }
  let end = lo;
  while (end < to && base.docs[end] === doc) end++;
  return [lo, end];
}

/** Position of stem `term` in the base, or -1. */
export function baseTerm(base: BasePostings, term: string): number {
  return findWord(base.terms, term);
}

