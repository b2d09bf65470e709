/**
 * A run: one turn of one node. It numbers its events, keeps them for replay, and
 * fans them out to live subscribers; it ends with exactly one terminal event.
 */
import type { ChatEvent, NumberedEvent, RunStatus } from './types.js';
import { isTerminal } from './types.js';

/** A subscriber to a run's events. */
export type RunListener = (event: NumberedEvent) => void;

/** The state of one run. */
export class Run {
  readonly events: NumberedEvent[] = [];
  status: RunStatus = 'running';
  readonly controller = new AbortController();
  private readonly listeners = new Set<RunListener>();
  private resolveDone!: () => void;
  /** Resolves when the terminal event has been recorded. */
  readonly done: Promise<void> = new Promise((resolve) => {
    this.resolveDone = resolve;
  });

  constructor(
    readonly id: string,
    readonly structureId: string,
    readonly nodeId: string,
    readonly roleId: string,
  ) {}

  private assigned = 0;
  /** True once a terminal event has been assigned a number: nothing may follow it. */
  sealed = false;

  /** Reserves the next sequence number; sealing the run when the event is terminal. */
  reserve(terminal: boolean): number | undefined {
    if (this.sealed) return undefined;
    if (terminal) this.sealed = true;
    return ++this.assigned;
  }

  /** True once a terminal event was recorded. */
  get finished(): boolean {
    return this.status !== 'running';
  }

  /** Records an event (already persisted, in sequence order) and notifies subscribers. */
  push(seq: number, event: ChatEvent): NumberedEvent {
    const numbered = { seq, event };
    this.events.push(numbered);
    if (isTerminal(event)) this.status = event.type === 'complete' ? 'complete' : 'error';
    for (const listener of [...this.listeners]) listener(numbered);
    if (this.finished) {
      this.listeners.clear();
      this.resolveDone();
    }
    return numbered;
  }

  /**
   * Replays the events after `afterSeq` to `listener`, then follows live ones.
   * Returns the unsubscribe function.
   */
  subscribe(afterSeq: number, listener: RunListener): () => void {
    for (const numbered of this.events) if (numbered.seq > afterSeq) listener(numbered);
    if (this.finished) return () => undefined;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The terminal event, once there is one. */
  get terminal(): ChatEvent | undefined {
    const last = this.events.at(-1)?.event;
    return last && isTerminal(last) ? last : undefined;
  }
}
