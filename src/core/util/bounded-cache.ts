/**
 * A least-recently-used cache bounded both by entry count and by approximate bytes: a
 * cache bounded by count alone still grows without limit when its entries grow (a
 * node's history, a shelf's listing), and one bounded by bytes alone keeps any number
 * of tiny entries. Every in-memory cache of org that outlives a request is one of these.
 */

/** Both limits of a cache: whichever is reached first evicts the least recently used entries. */
export interface CacheBounds {
  /** Entries kept at most. */
  maxEntries: number;
  /** Approximate bytes kept at most (an entry larger than this alone is not kept). */
  maxBytes: number;
}

/** Bookkeeping cost of one entry beyond what its value is measured at (key, map slot). */
export const ENTRY_OVERHEAD_BYTES = 96;

/** An LRU map with count and byte bounds; values are measured by the caller. */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    private readonly bounds: CacheBounds,
    /** Called with each entry dropped to stay within bounds (not on `delete`). */
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!(bounds.maxEntries >= 1) || !(bounds.maxBytes >= 1)) throw new RangeError('cache bounds must be at least 1');
  }

  /** The value of `key`, marked as most recently used. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** The value of `key` without touching its recency. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /**
   * Keeps `value` under `key` as the most recently used entry, measured at `bytes`, and
   * drops the least recently used entries beyond the bounds. Returns false (and keeps
   * nothing) when the value alone is over the byte bound.
   */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    const measured = Math.max(0, bytes) + ENTRY_OVERHEAD_BYTES;
    if (measured > this.bounds.maxBytes) return false;
    this.entries.set(key, { value, bytes: measured });
    this.total += measured;
    this.trim(key);
    return true;
  }

  /**
   * Re-measures an entry whose value grew or shrank in place (`delta` bytes), then trims;
   * an entry grown past the byte bound on its own is dropped.
   */
  resize(key: K, delta: number): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    const bytes = Math.max(ENTRY_OVERHEAD_BYTES, entry.bytes + delta);
    this.total += bytes - entry.bytes;
    entry.bytes = bytes;
    if (entry.bytes > this.bounds.maxBytes) {
      this.entries.delete(key);
      this.total -= entry.bytes;
      this.onEvict?.(key, entry.value);
      return;
    }
    this.trim(key);
  }

  /** Drops an entry (no eviction callback). */
  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.total -= entry.bytes;
    return true;
  }

  /** Entries and approximate bytes kept. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.total };
  }

  /** Keys from least to most recently used. */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  /** Drops least recently used entries (never `keep`) until within bounds. */
  private trim(keep: K): void {
    for (const [key, entry] of this.entries) {
      if (this.total <= this.bounds.maxBytes && this.entries.size <= this.bounds.maxEntries) break;
      if (key === keep) continue;
      this.entries.delete(key);
      this.total -= entry.bytes;
      this.onEvict?.(key, entry.value);
    }
  }
}
