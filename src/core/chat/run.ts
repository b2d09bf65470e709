/**
 * A run: one turn of one node, as live subscribers see it. It holds the events
 * published so far (each once, as encoded JSON) and fans them out in order; it ends with
 * exactly one terminal event. Numbering and persistence happen before an event gets here
 * (see `RunAppender`): a published event is already durable.
 */
import { decodeEvent, encodedBytes, type EncodedEvent } from './encoded.js';
import type { RunLocation } from './store.js';
import { isTerminal, type ChatEvent, type RunStatus } from './types.js';

/** A subscriber to a run's events. */
export type RunListener = (event: EncodedEvent) => void;

/** The live state of one run. */
export class Run {
  status: RunStatus = 'running';
  readonly controller = new AbortController();
  private readonly published: EncodedEvent[] = [];
  private readonly listeners = new Set<RunListener>();
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

  /** Publishes durable events, in sequence order, to every subscriber. */
  publish(batch: readonly EncodedEvent[]): void {
    for (const event of batch) {
      this.published.push(event);
      this.heldBytes += encodedBytes(event);
      if (isTerminal(event)) this.status = event.type === 'complete' ? 'complete' : 'error';
      for (const listener of this.listeners) listener(event);
    }
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
    for (const event of this.published) if (event.seq > afterSeq) listener(event);
    if (this.finished) return () => undefined;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The published events after `afterSeq`. */
  eventsAfter(afterSeq: number): EncodedEvent[] {
    return afterSeq <= 0 ? [...this.published] : this.published.filter((event) => event.seq > afterSeq);
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
