/**
 * Finished runs kept in memory for a while, so that a client resuming a run or a sync
 * request reading it right after it ended does not go to disk. Bounded by the bytes of
 * the runs' events and by count: the oldest finished run goes first.
 */
import { BoundedCache } from '../util/bounded-cache.js';
import type { Run } from './run.js';

/** A byte- and count-bounded cache of finished runs. */
export class RecentRuns {
  private readonly runs: BoundedCache<string, Run>;

  /**
   * @param maxBytes approximate bytes of events kept (a single larger run is not kept)
   * @param maxRuns runs kept at most, whatever their size
   */
  constructor(maxBytes: number, maxRuns = 2000) {
    this.runs = new BoundedCache({ maxEntries: maxRuns, maxBytes });
  }

  /** Adds a finished run, dropping the oldest ones beyond the bounds. */
  add(run: Run): void {
    this.runs.set(run.id, run, run.bytes);
  }

  /** A kept run. */
  get(runId: string): Run | undefined {
    return this.runs.peek(runId);
  }

  /** How many runs and bytes are kept. */
  get size(): { runs: number; bytes: number } {
    const { entries, bytes } = this.runs.size;
    return { runs: entries, bytes };
  }
}
