/**
 * Scoring without materialising matches: BM25F over the fields of each skill (weighted
 * term frequencies summed across fields, then saturated once), accumulated into typed
 * arrays that are reused from one search to the next, multiplied by how much of the
 * query a skill covers, and reduced to the best few candidates with a small heap. A
 * search allocates a few small arrays, whatever the number of skills it touches.
 */
import type { Hidden } from '../visibility.js';
import { STATUS, type DocTable } from './docs.js';
import type { BasePostings, DeltaPostings, PostingRows } from './postings.js';
import { baseTerm, TF_BITS } from './postings.js';
import { idf, type QueryPlan } from './query.js';
import { SEARCH_FIELDS, type SearchTuning } from './tuning.js';

const FIELDS = SEARCH_FIELDS.length;

/** What scoring reads. */
export interface ScoreSource {
  docs: DocTable;
  base: BasePostings;
  delta: DeltaPostings;
  /** Live documents the searching structure sees (see `scope-stats.ts`). */
  documentCount: number;
  /** Documents the searching structure sees that hold `term`. */
  documentFrequency(term: string): number;
}

/** A candidate after accumulation. */
export interface Candidate {
  doc: number;
  /** BM25F sum over the query's words (each word: its best expansion). */
  bm25: number;
  /** IDF-weighted share of the query's known words the skill matches (0–1). */
  coverage: number;
  /** `bm25 × coverage^coveragePower`. */
  score: number;
}

/** Reusable per-document buffers of one index. */
export class ScoreScratch {
  total = new Float64Array(0);
  best = new Float64Array(0);
  mark = new Int32Array(0);
  mask = new Uint32Array(0);
  touched = new Int32Array(0);
  conceptDocs = new Int32Array(0);
  /** Per document and field: boost / length normalisation, so a posting costs one multiply. */
  norms = new Float64Array(0);
  /** The document table, tuning and average field lengths the norms were computed for (recomputed when any changes). */
  normsOf: { docs: DocTable; count: number; live: number; tuning: SearchTuning; average: number[] } | undefined;
  generation = 0;

  /** Makes room for `n` documents. */
  ensure(n: number): void {
    if (this.total.length >= n) return;
    const size = Math.max(n, this.total.length * 2, 64);
    this.total = new Float64Array(size);
    this.best = new Float64Array(size);
    this.mark = new Int32Array(size);
    this.mask = new Uint32Array(size);
    this.touched = new Int32Array(size);
    this.conceptDocs = new Int32Array(size);
    this.generation = 0;
  }

  /**
   * The field norms of `docs` under `tuning`, with the average field lengths of what the
   * searching structure sees (`scope`, see `DocTable.averageLength`), computed again only
   * when the table or those averages changed.
   */
  fieldNorms(docs: DocTable, tuning: SearchTuning, scope?: number): Float64Array {
    const average = SEARCH_FIELDS.map((_, f) => docs.averageLength(f, scope));
    const held = this.normsOf;
    if (held && held.docs === docs && held.count === docs.count && held.live === docs.live && held.tuning === tuning && held.average.every((value, f) => value === average[f])) {
      return this.norms;
    }
    if (this.norms.length < docs.count * FIELDS) this.norms = new Float64Array(Math.max(docs.count * FIELDS, this.norms.length * 2, 64 * FIELDS));
    const boost = SEARCH_FIELDS.map((f) => tuning.boosts[f]);
    const bFactor = SEARCH_FIELDS.map((f) => tuning.b[f]);
    for (let doc = 0; doc < docs.count; doc++) {
      for (let f = 0; f < FIELDS; f++) {
        const bf = bFactor[f] as number;
        this.norms[doc * FIELDS + f] = (boost[f] as number) / (1 - bf + (bf * (docs.lengths[doc * FIELDS + f] as number)) / (average[f] as number));
      }
    }
    this.normsOf = { docs, count: docs.count, live: docs.live, tuning, average };
    return this.norms;
  }
}

/** Options of {@link score}. */
export interface ScoreOptions {
  structureId?: string;
  /** Instance slugs the structure replaced (not candidates; see `visibility.ts`). */
  hidden?: Hidden;
  /** How many candidates to keep. */
  depth: number;
  /** Documents whose figures are wanted whatever their rank or status (explain). */
  watch?: ReadonlySet<number>;
}

/** Result of {@link score}: the best candidates (best first) and the watched documents' figures. */
export interface ScoreResult {
  candidates: Candidate[];
  watched: Map<number, Candidate>;
  /** Documents that matched at least one query word (any status). */
  matched: number;
}

const TF_MASK = (1 << TF_BITS) - 1;

/** Scores every document the query's terms reach and keeps the best `depth` eligible ones. */
export function score(source: ScoreSource, plan: QueryPlan, tuning: SearchTuning, scratch: ScoreScratch, options: ScoreOptions): ScoreResult {
  const { docs, base, delta } = source;
  scratch.ensure(docs.count);
  const norms = scratch.fieldNorms(docs, tuning, options.structureId === undefined ? undefined : docs.scopeIndex(options.structureId));
  const { total, best, mask, touched, conceptDocs } = scratch;
  const n = Math.max(source.documentCount, tuning.minCorpusSize);
  const status = docs.status;
  let touchedCount = 0;

  for (let c = 0; c < plan.concepts.length; c++) {
    const concept = plan.concepts[c] as QueryPlan['concepts'][number];
    if (concept.expansions.length === 0) continue;
    const gen = ++scratch.generation;
    let counted = 0;
    for (const expansion of concept.expansions) {
      const weight = idf(source.documentFrequency(expansion.term), n) * expansion.weight;
      const t = baseTerm(base, expansion.term);
      if (t >= 0) counted = walkRow(base, t, weight, tuning.k1, scratch, norms, status, gen, counted);
      const r = delta.termIndex(expansion.term);
      if (r >= 0) counted = walkRow(delta.rows(), r, weight, tuning.k1, scratch, norms, status, gen, counted);
    }
    const bit = 1 << c;
    for (let i = 0; i < counted; i++) {
      const doc = conceptDocs[i] as number;
      if (mask[doc] === 0) touched[touchedCount++] = doc;
      mask[doc] = (mask[doc] as number) | bit;
      total[doc] = (total[doc] as number) + (best[doc] as number);
    }
  }

  let knownWeight = 0;
  for (const concept of plan.concepts) if (concept.known) knownWeight += concept.weight;
  const coverageOf = (bits: number): number => {
    let covered = 0;
    for (let c = 0; c < plan.concepts.length; c++) if (bits & (1 << c)) covered += (plan.concepts[c] as QueryPlan['concepts'][number]).weight;
    return knownWeight > 0 ? covered / knownWeight : 0;
  };
  const power = tuning.coveragePower;

  const heap: Candidate[] = [];
  const watched = new Map<number, Candidate>();
  let floor = -Infinity;
  for (let i = 0; i < touchedCount; i++) {
    const doc = touched[i] as number;
    const bm25 = total[doc] as number;
    const bits = mask[doc] as number;
    total[doc] = 0;
    mask[doc] = 0;
    if (options.watch?.has(doc)) {
      const coverage = coverageOf(bits);
      watched.set(doc, { doc, bm25, coverage, score: bm25 * Math.pow(coverage, power) });
    }
    const state = status[doc];
    if ((state !== STATUS.complete && state !== STATUS.deprecated) || !docs.visibleTo(doc, options.structureId, options.hidden)) continue;
    // Coverage is at most 1: a document whose BM25F alone is under the heap's floor cannot enter it.
    if (heap.length >= options.depth && bm25 <= floor) continue;
    const coverage = coverageOf(bits);
    const value = bm25 * Math.pow(coverage, power);
    if (heap.length < options.depth) heapPush(heap, { doc, bm25, coverage, score: value });
    else if (value > (heap[0] as Candidate).score) heapReplaceTop(heap, { doc, bm25, coverage, score: value });
    else continue;
    if (heap.length >= options.depth) floor = (heap[0] as Candidate).score;
  }
  heap.sort((a, b) => b.score - a.score || a.doc - b.doc);
  return { candidates: heap, watched, matched: touchedCount };
}

/**
 * Adds one term's BM25F contribution per document to `best` (the best so far for the
 * current query word, marked with `gen`); entries of one document are adjacent. Returns
 * the new count of documents listed in `conceptDocs`.
 */
function walkRow(
  base: PostingRows,
  t: number,
  weight: number,
  k1: number,
  scratch: ScoreScratch,
  norms: Float64Array,
  status: Uint8Array,
  gen: number,
  counted: number,
): number {
  const { best, mark, conceptDocs } = scratch;
  const docsAt = base.docs;
  const packedAt = base.fieldTf;
  const to = base.offsets[t + 1] as number;
  let k = base.offsets[t] as number;
  while (k < to) {
    const doc = docsAt[k] as number;
    let tfw = 0;
    while (k < to && docsAt[k] === doc) {
      const packed = packedAt[k] as number;
      tfw += (norms[doc * FIELDS + (packed >>> TF_BITS)] as number) * (packed & TF_MASK);
      k++;
    }
    if (status[doc] === STATUS.removed) continue;
    const value = (weight * tfw * (k1 + 1)) / (tfw + k1);
    if (mark[doc] !== gen) {
      mark[doc] = gen;
      best[doc] = value;
      conceptDocs[counted++] = doc;
    } else if (value > (best[doc] as number)) best[doc] = value;
  }
  return counted;
}

function heapPush(heap: Candidate[], item: Candidate): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if ((heap[parent] as Candidate).score <= item.score) break;
    heap[i] = heap[parent] as Candidate;
    i = parent;
  }
  heap[i] = item;
}

function heapReplaceTop(heap: Candidate[], item: Candidate): void {
  let i = 0;
  const size = heap.length;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && (heap[right] as Candidate).score < (heap[left] as Candidate).score ? right : left;
    if ((heap[child] as Candidate).score >= item.score) break;
    heap[i] = heap[child] as Candidate;
    i = child;
  }
  heap[i] = item;
}
