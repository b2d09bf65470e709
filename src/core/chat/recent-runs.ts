/**
 * Finished runs kept in memory for a while, so that a client resuming a run or a sync
 * request reading it right after it ended does not go to disk. Bounded by the bytes of
 * the runs' events (and by count): the oldest finished run goes first.
 */
import type { Run } from './run.js';

/** A byte-bounded cache of finished runs. */
export class RecentRuns {
  private readonly runs = new Map<string, Run>();
  private bytes = 0;

  /**
   * @param maxBytes approximate bytes of events kept (a single larger run is not kept)
   * @param maxRuns runs kept at most, whatever their size
   */
  constructor(
    private readonly maxBytes: number,
    private readonly maxRuns = 2000,
  ) {}

  /** Adds a finished run, dropping the oldest ones beyond the bounds. */
  add(run: Run): void {
    if (run.bytes > this.maxBytes) return;
    this.runs.set(run.id, run);
    this.bytes += run.bytes;
    for (const [id, old] of this.runs) {
      if (this.bytes <= this.maxBytes && this.runs.size <= this.maxRuns) break;
      this.runs.delete(id);
      this.bytes -= old.bytes;
    }
  }

  /** A kept run. */
  get(runId: string): Run | undefined {
    return this.runs.get(runId);
  }

  /** How many runs and bytes are kept. */
  get size(): { runs: number; bytes: number } {
    return { runs: this.runs.size, bytes: this.bytes };
  }
}
