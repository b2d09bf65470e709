/**
 * Gives memory back to the system once a burst of work is over. V8 lets its heap grow
 * during a burst (hundreds of turns and streams at once) to several times what is alive,
 * and a server that then goes quiet allocates too little to ever collect again: the pages
 * stay resident (a burst of 500 streams left ~150 MB, of a live heap under 40 MB). So after
 * `afterRuns` runs have ended and the server has had nothing to do (`busy`: no run, no
 * stream) for `quietMs`, one full collection runs, and V8 returns the pages it frees. A
 * collection of a quiet server's heap takes a few milliseconds to a few hundred; it never
 * runs while a turn or a stream does.
 *
 * The collection is V8's own (`gc`, exposed at run time the way test runners do), and
 * nothing happens where the runtime refuses to expose it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's full collection, or undefined where it cannot be had. */
export function fullCollection(): (() => void) | undefined {
  const existing = (globalThis as { gc?: unknown }).gc;
  if (typeof existing === 'function') return existing as () => void;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

/** Settings of a {@link MemoryRelease}. */
export interface MemoryReleaseOptions {
  /** Runs that must have ended since the last collection (default 100). */
  afterRuns?: number;
  /** Time without a run before collecting, in ms (default 1 s). */
  quietMs?: number;
  /** The collection (default {@link fullCollection}). */
  collect?: () => void;
  /** Told after each collection how long it took, in ms (for the operator's log). */
  onCollected?: (ms: number) => void;
}

/** See the module comment. Call {@link runEnded} as each run ends. */
export class MemoryRelease {
  private ended = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly afterRuns: number;
  private readonly quietMs: number;
  private readonly collect: (() => void) | undefined;
  private readonly onCollected: ((ms: number) => void) | undefined;
  /** Collections run so far. */
  collections = 0;

  constructor(
    /** True while a run is queued or running. */
    private readonly busy: () => boolean,
    options: MemoryReleaseOptions = {},
  ) {
    this.afterRuns = options.afterRuns ?? 100;
    this.quietMs = options.quietMs ?? 1000;
    this.collect = options.collect ?? fullCollection();
    this.onCollected = options.onCollected;
  }

  /** A run ended: once enough have, a collection is scheduled for when the server is quiet. */
  runEnded(): void {
    this.ended++;
    if (!this.collect || this.ended < this.afterRuns) return;
    if (this.timer) this.timer.refresh();
    else {
      this.timer = setTimeout(() => this.fire(), this.quietMs);
      this.timer.unref();
    }
  }

  /** Stops a scheduled collection. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    if (!this.collect) return;
    // Still at work (a run, a stream still sending): looked at again a quiet time later.
    if (this.busy()) {
      this.timer = setTimeout(() => this.fire(), this.quietMs);
      this.timer.unref();
      return;
    }
    this.ended = 0;
    this.collections++;
    const started = performance.now();
    // Twice: the first collection frees the burst's objects, the second moves what is left off
    // the pages they shared so that V8 can let go of those pages (measured: one alone returned
    // about a tenth of what two do).
    this.collect();
    this.collect();
    this.onCollected?.(performance.now() - started);
  }
}
