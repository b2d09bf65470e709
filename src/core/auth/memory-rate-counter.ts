/**
 * The rate counter of a single instance (a filesystem home): fixed windows per key,
 * counted in memory and answered at once, so the per-token limit costs a request no
 * promise. The windows live in a bounded cache, so a flood of distinct keys cannot grow
 * memory without limit: the windows that began longest ago are dropped first (they are
 * the nearest to their end anyway), and a key dropped that way starts a fresh window.
 * Counting a request does not reorder the cache (it runs on every request).
 */
import { BoundedCache } from '../util/bounded-cache.js';
import type { RateCount, RateCounter } from './rate-counter.js';

/** Keys remembered at most (the oldest windows are dropped first). */
export const DEFAULT_RATE_KEYS = 10_000;

/** A window's own bytes beyond its key (two numbers in a small object). */
const WINDOW_BYTES = 48;

/** One key's window. */
interface Window {
  /** When the window began (epoch milliseconds). */
  start: number;
  /** Requests counted in it. */
  count: number;
}

/** Counts requests per key in fixed windows, in this process. */
export class MemoryRateCounter implements RateCounter {
  private readonly windows: BoundedCache<string, Window>;

  /** `now` is the clock (replaceable in tests, which never wait on time). */
  constructor(
    maxKeys = DEFAULT_RATE_KEYS,
    private readonly now: () => number = Date.now,
  ) {
    this.windows = new BoundedCache({ maxEntries: maxKeys, maxBytes: maxKeys * 1024 });
  }

  /** Counts one request for `key` and answers the count at once. */
  count(key: string, windowMs: number): RateCount {
    const now = this.now();
    let window = this.windows.peek(key);
    if (window === undefined || window.start + windowMs <= now) {
      window = { start: now, count: 0 };
      this.windows.set(key, window, key.length * 2 + WINDOW_BYTES);
    }
    window.count++;
    return { count: window.count, ttlMs: window.start + windowMs - now };
  }

  async hit(key: string, windowMs: number): Promise<RateCount> {
    return this.count(key, windowMs);
  }
}
