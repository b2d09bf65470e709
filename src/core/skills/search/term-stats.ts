/**
 * Document frequencies of index terms, kept by id like the index itself: each document
 * remembers the ids of its distinct terms (a small integer array), so replacing or
 * removing it adjusts the counts without its old text. MiniSearch does not expose
 * document frequencies, and the query planner needs them for IDF weights.
 */

/** Serialised form (part of the persisted index). */
export interface TermStatsJSON {
  terms: string[];
  docs: Record<string, number[]>;
}

/** Document frequency bookkeeping. */
export class TermStats {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  private readonly df: number[] = [];
  private readonly docs = new Map<string, Uint32Array>();

  /** Number of documents counted. */
  get documentCount(): number {
    return this.docs.size;
  }

  /** In how many documents `term` occurs. */
  documentFrequency(term: string): number {
    const id = this.ids.get(term);
    return id === undefined ? 0 : (this.df[id] ?? 0);
  }

  /** Records (or re-records) the distinct terms of document `key`. */
  set(key: string, terms: Iterable<string>): void {
    this.remove(key);
    const list: number[] = [];
    for (const term of terms) {
      let id = this.ids.get(term);
      if (id === undefined) {
        id = this.terms.length;
        this.ids.set(term, id);
        this.terms.push(term);
        this.df.push(0);
      }
      this.df[id] = (this.df[id] ?? 0) + 1;
      list.push(id);
    }
    this.docs.set(key, Uint32Array.from(list));
  }

  /** Forgets document `key`. */
  remove(key: string): void {
    const old = this.docs.get(key);
    if (!old) return;
    for (const id of old) this.df[id] = (this.df[id] ?? 1) - 1;
    this.docs.delete(key);
  }

  /** A plain object for JSON. */
  toJSON(): TermStatsJSON {
    const docs: Record<string, number[]> = {};
    for (const [key, ids] of this.docs) docs[key] = Array.from(ids);
    return { terms: [...this.terms], docs };
  }

  /** Rebuilds the counts from {@link toJSON} output; throws on a malformed value. */
  static fromJSON(json: TermStatsJSON): TermStats {
    if (!Array.isArray(json.terms) || typeof json.docs !== 'object' || json.docs === null) {
      throw new TypeError('malformed term statistics');
    }
    const stats = new TermStats();
    json.terms.forEach((term, id) => {
      stats.ids.set(term, id);
      stats.terms.push(term);
      stats.df.push(0);
    });
    for (const [key, ids] of Object.entries(json.docs)) {
      const list = Uint32Array.from(ids);
      for (const id of list) {
        if (id >= stats.df.length) throw new TypeError('malformed term statistics');
        stats.df[id] = (stats.df[id] ?? 0) + 1;
      }
      stats.docs.set(key, list);
    }
    return stats;
  }
}
