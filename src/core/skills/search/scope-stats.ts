/**
 * The collection statistics a structure's search is computed from: how many skills it
 * can see, and in how many of them each word occurs. A structure sees the instance
 * skills and its own, never another structure's; if ranking used the counts of the whole
 * library, another structure's private skills would move its scores and decide which
 * query words are "known" (and shown, with their weights, by `explain`): a word-by-word
 * oracle on their content. So a structure's search weighs words by the instance library
 * plus its own skills only:
 *
 *   df(S, t) = df(t) − df(every structure, t) + df(S, t)
 *
 * The structures' counts are taken from the postings (base and delta) the first time a
 * scoped search needs them, then kept up as documents are added; like the library's own
 * counts they include replaced documents until the next compaction, after which they are
 * taken again. The instance skills a structure replaced (by its own or a fork) are public
 * and stay counted: that leaks nothing.
 */
import type { AnalysedBatch } from './batch.js';
import type { DocTable } from './docs.js';
import type { BasePostings, DeltaPostings, PostingRows } from './postings.js';

/** Word counts of structures' skills. */
export class ScopeStats {
  /** Per structure (its index in the document table's scopes): stem → documents. */
  private readonly byScope = new Map<number, Map<string, number>>();
  /** Stem → documents of any structure. */
  private readonly all = new Map<string, number>();

  /** Counts every structure document of the postings (replaced ones included, as the library's counts do). */
  static build(docs: DocTable, base: BasePostings, delta: DeltaPostings): ScopeStats {
    const stats = new ScopeStats();
    const take = (rows: PostingRows, term: (t: number) => string, count: number): void => {
      for (let t = 0; t < count; t++) {
        let last = -1;
        for (let i = rows.offsets[t] as number; i < (rows.offsets[t + 1] as number); i++) {
          const doc = rows.docs[i] as number;
          if (doc === last) continue;
          last = doc;
          const scope = docs.scope[doc] as number;
          if (scope !== -1) stats.count(scope, term(t));
        }
      }
    };
    take(base, (t) => base.terms[t] as string, base.terms.length);
    const deltaTerms = delta.termOrder();
    take(delta.rows(), (t) => deltaTerms[t] as string, deltaTerms.length);
    return stats;
  }

  /** Counts a document of structure `scope` (an index into the document table's scopes) holding these stems. */
  add(scope: number, stems: Iterable<string>): void {
    for (const stem of new Set(stems)) this.count(scope, stem);
  }

  /** Counts the structure documents of a batch just added as documents `first`, `first + 1`, … */
  addBatch(docs: DocTable, batch: AnalysedBatch, first: number): void {
    let entry = 0;
    batch.facts.forEach((_facts, d) => {
      const end = batch.entryEnd[d] as number;
      const scope = docs.scope[first + d] as number;
      if (scope !== -1) {
        const stems = new Set<string>();
        for (let i = entry; i < end; i++) stems.add(batch.stems[batch.entryStem[i] as number] as string);
        this.add(scope, stems);
      }
      entry = end;
    });
  }

  /** Documents a structure sees holding `term`: the library's count less every structure's, plus its own. */
  frequency(total: number, term: string, scope: number | undefined): number {
    const own = scope === undefined ? 0 : (this.byScope.get(scope)?.get(term) ?? 0);
    return Math.max(0, total - (this.all.get(term) ?? 0) + own);
  }

  private count(scope: number, stem: string): void {
    let counts = this.byScope.get(scope);
    if (!counts) this.byScope.set(scope, (counts = new Map()));
    counts.set(stem, (counts.get(stem) ?? 0) + 1);
    this.all.set(stem, (this.all.get(stem) ?? 0) + 1);
  }
}
