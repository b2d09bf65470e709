/**
 * The MiniSearch of the skill library, with the lookups its term dictionary answers and
 * its public API does not: how many live skills hold a term, which indexed terms start
 * with a prefix, which are a few edits from a misspelt word. Query planning needs them
 * before it searches (to weigh a word, and to choose what a word the library lacks is
 * read as); MiniSearch keeps its terms in a radix tree (`SearchableMap`) that answers
 * all three without a second index.
 */
import MiniSearch, { type Options } from 'minisearch';

/** Document frequencies remembered between changes (the terms of recent queries). */
const MEMO_SIZE = 20_000;

/** The library's MiniSearch: MiniSearch itself, plus reads of its term dictionary. */
export class SkillMiniSearch<T> extends MiniSearch<T> {
  private readonly frequencies = new Map<string, number>();

  /**
   * A MiniSearch restored from its JSON (`loadJSONAsync`, which builds the plain class),
   * given the reads of this one.
   */
  static async restore<T>(json: string, options: Options<T>): Promise<SkillMiniSearch<T>> {
    const loaded = await MiniSearch.loadJSONAsync<T>(json, options);
    return Object.assign(new SkillMiniSearch<T>(options), loaded);
  }

  /** A MiniSearch restored from its JSON at once (`loadJSON`): a copy of an index, made while a write waits. */
  static restoreSync<T>(json: string, options: Options<T>): SkillMiniSearch<T> {
    return Object.assign(new SkillMiniSearch<T>(options), MiniSearch.loadJSON<T>(json, options));
  }

  /** Forgets memoised document frequencies: call after every add, replace or discard. */
  changed(): void {
    this.frequencies.clear();
  }

  /** Number of live documents holding `term` in any field (memoised until {@link changed}). */
  documentFrequency(term: string): number {
    let count = this.frequencies.get(term);
    if (count !== undefined) return count;
    count = 0;
    const fields = this._index.get(term);
    if (fields) {
      if (fields.size === 1) {
        for (const docs of fields.values()) for (const doc of docs.keys()) if (this._documentIds.has(doc)) count++;
      } else {
        const seen = new Set<number>();
        for (const docs of fields.values()) for (const doc of docs.keys()) if (this._documentIds.has(doc)) seen.add(doc);
        count = seen.size;
      }
    }
    if (this.frequencies.size >= MEMO_SIZE) this.frequencies.clear();
    this.frequencies.set(term, count);
    return count;
  }

  /** Indexed terms that start with `prefix` (itself excluded), at most `max`, in key order. */
  termsWithPrefix(prefix: string, max: number): string[] {
    const out: string[] = [];
    for (const term of this._index.atPrefix(prefix).keys()) {
      if (term === prefix) continue;
      out.push(term);
      if (out.length >= max) break;
    }
    return out;
  }

  /** Indexed terms within `maxDistance` edits of `term` (itself excluded), with their distance. */
  termsNear(term: string, maxDistance: number): { term: string; distance: number }[] {
    const out: { term: string; distance: number }[] = [];
    for (const [near, [, distance]] of this._index.fuzzyGet(term, maxDistance)) {
      if (distance > 0) out.push({ term: near, distance });
    }
    return out;
  }
}

/** The `size` best items offered, by score then key (a bounded selection: offering costs little once it is full). */
export class TopK<T> {
  private readonly kept: { score: number; key: string; item: T }[] = [];

  constructor(private readonly size: number) {}

  /** Keeps the item when it is among the best so far. */
  offer(score: number, key: string, item: T): void {
    const kept = this.kept;
    if (kept.length >= this.size) {
      const last = kept[kept.length - 1] as { score: number; key: string };
      if (score < last.score || (score === last.score && key >= last.key)) return;
      kept.pop();
    }
    let at = kept.length;
    while (at > 0) {
      const before = kept[at - 1] as { score: number; key: string };
      if (before.score > score || (before.score === score && before.key < key)) break;
      at--;
    }
    kept.splice(at, 0, { score, key, item });
  }

  /** True once `size` items are kept. */
  full(): boolean {
    return this.kept.length >= this.size;
  }

  /** The lowest score kept (-Infinity while empty). */
  floor(): number {
    return this.kept[this.kept.length - 1]?.score ?? -Infinity;
  }

  /** The kept items, best first. */
  sorted(): { score: number; key: string; item: T }[] {
    return this.kept;
  }
}
