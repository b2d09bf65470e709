/**
 * The replay guard of the inbound webhooks: each `webhook-id` is taken once within the
 * window a timestamp is accepted in (twice the tolerance: a request may be signed up to
 * that much before or after the server's clock), so a captured request cannot be sent
 * again. Kept in memory, bounded by count; on a shared PostgreSQL store the backend's
 * guard takes ids in the database instead, so that no instance accepts an id another has.
 */
import { INBOUND_TOLERANCE_S } from './signature.js';

/** Takes message ids once. */
export interface ReplayGuard {
  /** True the first time `id` is taken within the window; false for a replay. */
  claim(id: string, nowMs: number): Promise<boolean>;
}

/** Ids remembered at most (about 330 a second over the 10-minute window). */
export const REPLAY_GUARD_ENTRIES = 200_000;

/** An in-memory guard: ids in the order they were taken, forgotten once out of the window (or, past the bound, oldest first). */
export class MemoryReplayGuard implements ReplayGuard {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly maxEntries = REPLAY_GUARD_ENTRIES,
    private readonly windowMs = 2 * INBOUND_TOLERANCE_S * 1000,
  ) {}

  claim(id: string, nowMs: number): Promise<boolean> {
    for (const [oldest, at] of this.seen) {
      if (at > nowMs - this.windowMs && this.seen.size < this.maxEntries) break;
      this.seen.delete(oldest);
    }
    if (this.seen.has(id)) return Promise.resolve(false);
    this.seen.set(id, nowMs);
    return Promise.resolve(true);
  }
}
