/**
 * Small helpers shared by the runtimes: abortable sleeps, human durations, short
 * excerpts for messages, and the emit tracker that lets a relay read on while the
 * engine records earlier events.
 */
import type { EventInput } from '../chat/types.js';
import type { Emit, RelayedEvent } from './types.js';

/** Waits `ms` milliseconds, or less when `signal` aborts (never rejects). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `250 ms`, `10 s`, `1.5 s`: a duration for a message. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

export { excerpt } from '../util/text.js';

/** A URL fit for a message: no user name, password, query or fragment. */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** The bytes counted for an event built rather than received (no JSON text to measure). */
const BUILT_EVENT_BYTES = 64;

/**
 * Emits events without waiting for each to be recorded: `push` calls `emit` at once
 * (the engine keeps the order of calls) and keeps the promise; `flush` waits for all
 * of them and rethrows the first failure. Relays read on while earlier events are
 * being written, which is what makes them fast.
 */
export class PendingEmits {
  /** Emits not yet awaited, each with about how many bytes of events it carries. */
  private pending: { promise: Promise<void>; bytes: number }[] = [];
  private waiting = 0;

  constructor(private readonly emit: Emit) {}

  /** Emits `event` now (with the JSON it was parsed from, when relayed); its completion is awaited by the next `flush`. */
  push(event: EventInput, raw?: string, parsed?: unknown): void {
    this.track(() => this.emit(event, raw, parsed), raw?.length ?? BUILT_EVENT_BYTES);
  }

  /**
   * Emits the events of one received chunk now, as one batch when the engine takes
   * batches (else one by one); their completion is awaited by the next `flush`.
   */
  pushBatch(events: RelayedEvent[]): void {
    if (events.length === 0) return;
    const batch = this.emit.batch;
    if (!batch) {
      for (const { event, raw, parsed } of events) this.push(event, raw, parsed);
      return;
    }
    let bytes = 0;
    for (const { raw } of events) bytes += raw?.length ?? BUILT_EVENT_BYTES;
    this.track(() => batch(events), bytes);
  }

  private track(start: () => Promise<void>, bytes: number): void {
    let promise: Promise<void>;
    try {
      promise = start();
    } catch (error) {
      promise = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    // A failure is reported by `flush`; this keeps it from counting as unhandled meanwhile.
    promise.catch(() => undefined);
    this.pending.push({ promise, bytes });
    this.waiting += bytes;
  }

  /** About how many bytes of emitted events (their JSON as received) are not yet awaited. */
  get bytes(): number {
    return this.waiting;
  }

  /**
   * Waits until at most about `keep` bytes of events are unrecorded, awaiting the oldest
   * first, so a fast producer keeps the history busy instead of stopping until it is
   * fully drained.
   */
  async drainTo(keep: number): Promise<void> {
    while (this.waiting > keep && this.pending.length > 0) {
      const oldest = this.pending.shift()!;
      this.waiting -= oldest.bytes;
      await oldest.promise;
    }
  }

  /** Waits until every event pushed so far is recorded. */
  async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      this.waiting = 0;
      await Promise.all(batch.map((entry) => entry.promise));
    }
  }
}
