/**
 * A run: one turn of one node, as live subscribers see it. It holds the events
 * published so far (each once, as encoded JSON) and fans them out in order; it ends with
 * exactly one terminal event. Numbering and persistence happen before an event gets here
 * (see `RunAppender`): a published event is already durable.
 */
import { decodeEvent, encodedBytes, type EncodedEvent } from './encoded.js';
import type { RunLocation } from './store.js';
import { isTerminal, type ChatEvent, type RunStatus } from './types.js';

/** A subscriber to a run's events, one by one. */
export type RunListener = (event: EncodedEvent) => void;

/**
 * A subscriber to a run's events, batch by batch as they were published (never empty),
 * with the batch's SSE frames as bytes when the publisher made them (`batchBytes`).
 */
export type RunBatchListener = (events: readonly EncodedEvent[], frames?: Buffer) => void;

/** The live state of one run. */
export class Run {
  status: RunStatus = 'running';
  readonly controller = new AbortController();
  private readonly published: EncodedEvent[] = [];
  private readonly listeners = new Set<RunBatchListener>();
  private heldBytes = 0;
  private resolveDone!: () => void;
  /** Resolves once the terminal event is published (and the run's end is durable). */
  readonly done: Promise<void> = new Promise((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(readonly where: RunLocation) {}

  get id(): string {
    return this.where.runId;
  }
  get structureId(): string {
    return this.where.structureId;
  }
  get nodeId(): string {
    return this.where.nodeId;
  }
  get roleId(): string {
    return this.where.roleId;
  }

  /** True once the terminal event was published. */
  get finished(): boolean {
    return this.status !== 'running';
  }

  /** Sequence number of the last published event (0 before the first). */
  get lastSeq(): number {
    return this.published.at(-1)?.seq ?? 0;
  }

  /** Approximate memory held by the published events. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Publishes durable events, in sequence order, to every subscriber (`frames`: their SSE frames, when made). */
  publish(batch: readonly EncodedEvent[], frames?: Buffer): void {
    if (batch.length === 0) return;
    for (const event of batch) {
      this.published.push(event);
      this.heldBytes += encodedBytes(event);
      if (isTerminal(event)) this.status = event.type === 'complete' ? 'complete' : 'error';
    }
    for (const listener of this.listeners) listener(batch, frames);
    if (this.finished) {
      this.listeners.clear();
      this.resolveDone();
    }
  }

  /**
   * Replays the events after `afterSeq` to `listener`, then follows live ones.
   * Returns the unsubscribe function.
   */
  subscribe(afterSeq: number, listener: RunListener): () => void {
    return this.follow(afterSeq, (events) => {
      for (const event of events) listener(event);
    });
  }

  /**
   * Replays the events after `afterSeq` to `listener` as one batch, then follows live
   * ones batch by batch (a stream writes each batch at once). Returns the unsubscribe function.
   */
  follow(afterSeq: number, listener: RunBatchListener): () => void {
    const earlier = this.eventsAfter(afterSeq);
    if (earlier.length > 0) listener(earlier);
    if (this.finished) return () => undefined;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The published events after `afterSeq`. */
  eventsAfter(afterSeq: number): EncodedEvent[] {
    // Published events are in ascending order: the first one past `afterSeq` by bisection.
    let low = 0;
    let high = this.published.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.published[middle]!.seq > afterSeq) high = middle;
      else low = middle + 1;
    }
    return this.published.slice(low);
  }

  /** Every published event, decoded (for JSON answers such as the sync endpoint). */
  decoded(): ChatEvent[] {
    return this.published.map(decodeEvent);
  }

  /** The terminal event, once there is one. */
  get terminal(): ChatEvent | undefined {
    const last = this.published.at(-1);
    return last && isTerminal(last) ? decodeEvent(last) : undefined;
  }
}
