/**
 * A run: one turn of one node, as live subscribers see it. It holds the events
 * published so far, batch by batch as the SSE frames they were sent as (see
 * `FrameBatch`: bytes outside the JavaScript heap, one object per batch, decoded only
 * when asked), and fans them out in order; it ends with exactly one terminal event.
 * Numbering and persistence happen before an event gets here (see `RunAppender`): a
 * published event is already durable.
 */
import type { DelegatedBy } from '../schemas/delegation.js';
import { decodeEvent, type EncodedEvent } from './encoded.js';
import { FrameBatch } from './frames.js';
import type { RunLocation } from './store.js';
import type { ChatEvent, EventType, RunStatus } from './types.js';

/** A subscriber to a run's events, one by one. */
export type RunListener = (event: EncodedEvent) => void;

/**
 * A subscriber to a run's events, batch by batch as they were published: the batches
 * made durable by one commit come together, in order (a stream writes them at once).
 */
export type RunBatchListener = (batches: readonly FrameBatch[]) => void;

/** Memory counted per batch besides its frames. */
const BATCH_OVERHEAD = 96;

/** The live state of one run. */
export class Run {
  status: RunStatus = 'running';
  readonly controller = new AbortController();
  private readonly published: FrameBatch[] = [];
  private readonly listeners = new Set<RunBatchListener>();
  private heldBytes = 0;
  private resolveDone!: () => void;
  /** Resolves once the terminal event is published (and the run's end is durable). */
  readonly done: Promise<void> = new Promise((resolve) => {
    this.resolveDone = resolve;
  });

  /** `delegatedBy`: on a delegated turn, the delegating node and run and the chain's root run. */
  constructor(
    readonly where: RunLocation,
    readonly delegatedBy?: DelegatedBy,
  ) {}

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
    return this.published.at(-1)?.last ?? 0;
  }

  /** Approximate memory held by the published events. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Publishes durable events, in sequence order, to every subscriber. */
  publish(events: readonly EncodedEvent[] | FrameBatch): void {
    if (!(events instanceof FrameBatch) && events.length === 0) return;
    this.publishAll([events instanceof FrameBatch ? events : FrameBatch.of(events)]);
  }

  /**
   * Publishes consecutive batches of durable events (those of one commit), in sequence
   * order: each subscriber gets them in one call, each batch still its own Buffer (no
   * copy joins them).
   */
  publishAll(batches: readonly FrameBatch[]): void {
    if (batches.length === 0) return;
    for (const batch of batches) {
      this.published.push(batch);
      this.heldBytes += batch.frames.length + BATCH_OVERHEAD;
    }
    const last = batches.at(-1)!;
    if (last.terminal) this.status = last.lastType === 'complete' ? 'complete' : 'error';
    for (const listener of this.listeners) listener(batches);
    if (this.finished) {
      this.listeners.clear();
      this.resolveDone();
    }
  }

  /**
   * Replays the events after `afterSeq` to `listener`, then follows live ones, one by
   * one. With `types`, only events of those types are decoded and passed on (batches
   * holding none of them cost nothing). Returns the unsubscribe function.
   */
  subscribe(afterSeq: number, listener: RunListener, types?: readonly EventType[]): () => void {
    return this.follow(afterSeq, (batches) => {
      for (const batch of batches) {
        if (types && !batch.holds(...types)) continue;
        for (const event of batch.events(afterSeq)) if (!types || types.includes(event.type)) listener(event);
      }
    });
  }

  /**
   * Replays the events after `afterSeq` to `listener` as one batch, then follows live
   * ones batch by batch (a stream writes each batch at once). Returns the unsubscribe function.
   */
  follow(afterSeq: number, listener: RunBatchListener): () => void {
    const earlier = this.batchAfter(afterSeq);
    if (earlier) listener([earlier]);
    if (this.finished) return () => undefined;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The published events after `afterSeq`, as one batch (undefined when there are none). */
  private batchAfter(afterSeq: number): FrameBatch | undefined {
    const from = this.firstBatchAfter(afterSeq);
    if (from >= this.published.length) return undefined;
    const head = this.published[from]!;
    const last = this.published.at(-1)!;
    if (from === this.published.length - 1 && afterSeq < head.first) return head;
    const parts = [head.framesAfter(afterSeq)];
    let types = head.types;
    for (let index = from + 1; index < this.published.length; index++) {
      parts.push(this.published[index]!.frames);
      types |= this.published[index]!.types;
    }
    return new FrameBatch(Math.max(head.first, afterSeq + 1), last.last, Buffer.concat(parts), types, last.lastType);
  }

  /** Index of the first published batch holding an event after `afterSeq`. */
  private firstBatchAfter(afterSeq: number): number {
    // Batches are in ascending order: bisection on their last sequence number.
    let low = 0;
    let high = this.published.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.published[middle]!.last > afterSeq) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** The published events after `afterSeq`, decoded from their frames. */
  eventsAfter(afterSeq: number): EncodedEvent[] {
    const events: EncodedEvent[] = [];
    for (let index = this.firstBatchAfter(afterSeq); index < this.published.length; index++) {
      for (const event of this.published[index]!.events(afterSeq)) events.push(event);
    }
    return events;
  }

  /** The last published event, if any. */
  get lastEvent(): EncodedEvent | undefined {
    return this.published.at(-1)?.lastEvent();
  }

  /** Every published event, decoded (for JSON answers such as the sync endpoint). */
  decoded(): ChatEvent[] {
    return this.eventsAfter(0).map(decodeEvent);
  }

  /** The terminal event, once there is one. */
  get terminal(): ChatEvent | undefined {
    const last = this.published.at(-1);
    return last?.terminal ? decodeEvent(last.lastEvent()) : undefined;
  }
}
