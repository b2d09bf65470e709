/**
 * The PostgreSQL `RateCounter`: one upsert per request on `org_rate_counts`. A key's
 * window opens with its first request and lasts `windowMs` (as the in-memory limiter of a
 * single instance counts), timed by the database's clock, so instances whose clocks
 * differ agree on it. Rows of windows long gone are deleted now and then, by whichever instance
 * notices first.
 */
import type { RateCounter } from '../../core/auth/rate-counter.js';
import type { Db } from './db.js';

/** Options of {@link createPgRateCounter}. */
export interface PgRateCounterOptions {
  /** Reports a failed clean-up of old windows (the count itself rejects on failure). */
  onError?: (error: unknown) => void;
}

const HIT = `
WITH now AS (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)
INSERT INTO org_rate_counts AS r (key, window_start, count)
SELECT $1, ms, 1 FROM now
ON CONFLICT (key) DO UPDATE
  SET count = CASE WHEN r.window_start + $2 > EXCLUDED.window_start THEN r.count + 1 ELSE 1 END,
      window_start = CASE WHEN r.window_start + $2 > EXCLUDED.window_start THEN r.window_start ELSE EXCLUDED.window_start END
RETURNING count, window_start + $2 - (SELECT ms FROM now) AS ttl`;

/** The counter over `db`. */
export function createPgRateCounter(db: Db, options: PgRateCounterOptions = {}): RateCounter {
  let lastSweep = Date.now();
  const sweep = (windowMs: number) => {
    if (Date.now() - lastSweep < windowMs) return;
    lastSweep = Date.now();
    db.query('DELETE FROM org_rate_counts WHERE window_start < floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint - $1', [2 * windowMs]).catch(
      options.onError ?? (() => undefined),
    );
  };
  return {
    async hit(key, windowMs) {
      const { rows } = await db.query<{ count: number; ttl: string }>(HIT, [key, Math.max(1, Math.floor(windowMs))]);
      sweep(windowMs);
      const row = rows[0]!;
      return { count: row.count, ttlMs: Math.max(0, Number(row.ttl)) };
    },
  };
}
