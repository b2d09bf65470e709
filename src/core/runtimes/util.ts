/**
 * Small helpers shared by the runtimes: abortable sleeps, human durations, short
 * excerpts for messages, and the emit tracker that lets a relay read on while the
 * engine records earlier events.
 */
import type { EventInput } from '../chat/types.js';
import type { Emit } from './types.js';

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

/**
 * Emits events without waiting for each to be recorded: `push` calls `emit` at once
 * (the engine keeps the order of calls) and keeps the promise; `flush` waits for all
 * of them and rethrows the first failure. Relays read on while earlier events are
 * being written, which is what makes them fast.
 */
export class PendingEmits {
  private pending: Promise<void>[] = [];

  constructor(private readonly emit: Emit) {}

  /** Emits `event` now (with the JSON it was parsed from, when relayed); its completion is awaited by the next `flush`. */
  push(event: EventInput, raw?: string, parsed?: unknown): void {
    let promise: Promise<void>;
    try {
      promise = this.emit(event, raw, parsed);
    } catch (error) {
      promise = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    // A failure is reported by `flush`; this keeps it from counting as unhandled meanwhile.
    promise.catch(() => undefined);
    this.pending.push(promise);
  }

  /** How many emitted events are not yet awaited. */
  get size(): number {
    return this.pending.length;
  }

  /**
   * Waits until at most `keep` events are unrecorded, awaiting the oldest first, so a
   * fast producer keeps the history busy instead of stopping until it is fully drained.
   */
  async drainTo(keep: number): Promise<void> {
    while (this.pending.length > keep) {
      const oldest = this.pending.splice(0, this.pending.length - keep);
      await Promise.all(oldest);
    }
  }

  /** Waits until every event pushed so far is recorded. */
  async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await Promise.all(batch);
    }
  }
}
