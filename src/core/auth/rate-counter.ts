/**
 * A request counter shared by every instance that serves one organisation, so that a
 * per-token rate limit holds however a load balancer spreads the requests. A filesystem
 * home has one instance and counts in memory (the server's own limiter); a shared store
 * (PostgreSQL) provides one.
 */

/** What one counted request learned. */
export interface RateCount {
  /** Requests counted for the key in the current window, this one included. */
  count: number;
  /** Milliseconds until the window ends and the count starts again. */
  ttlMs: number;
}

/** Counts requests per key in fixed windows of `windowMs`, across instances. */
export interface RateCounter {
  /** Counts one request for `key` in the window that holds now. */
  hit(key: string, windowMs: number): Promise<RateCount>;
}
