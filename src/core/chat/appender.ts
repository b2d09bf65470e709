/**
 * The one ordered appender of a run: every event of a turn goes through `append` (or
 * `appendTerminal`), which numbers it, stamps it and serialises it once, in call order.
 * Batches are then written (group-committed by the store), their side effects recorded,
 * and only then published to the run's subscribers, in number order. The first terminal
 * event seals the run: anything appended after it is dropped.
 */
import { batchBytes, encodeEvent, type EncodedEvent } from './encoded.js';
import type { Run } from './run.js';
import type { RunEventWriter } from './store.js';
import { isTerminal, type EventInput, type RelayedEvent } from './types.js';

/** What the appender asks of the engine around each batch. */
export interface AppenderHooks {
  /** Durable side effects of a batch (the workspace log); written beside the events. */
  sideEffects?(batch: readonly { input: EventInput; encoded: EncodedEvent }[]): Promise<void> | undefined;
  /** Records the end of the run once its terminal event is durable. */
  end(terminal: EncodedEvent, text: string): Promise<void>;
  /** Reports a failure to write (the events are published anyway, so no one waits forever). */
  onError(error: unknown): void;
}

interface Entry {
  /** The entry's events; undefined while a reserved terminal place is being computed. */
  items: { input: EventInput; encoded: EncodedEvent }[] | undefined;
  /** Settles once the entry is durable and published. */
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Numbers, persists and publishes a run's events, in one order. */
export class RunAppender {
  private seq = 0;
  private text = '';
  private sealedFlag = false;
  private readonly queue: Entry[] = [];
  private flushing: Promise<void> | undefined;
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: Run,
    private readonly writer: RunEventWriter,
    private readonly now: () => string,
    private readonly hooks: AppenderHooks,
  ) {}

  /** True once a terminal event was appended (or reserved). */
  get sealed(): boolean {
    return this.sealedFlag;
  }

  /**
   * Appends one event; resolves once it is durable. `raw` is the JSON text it was parsed
   * from and `parsed` that parse, when it came from outside: reused when canonical.
   */
  append(input: EventInput, raw?: string, parsed?: unknown): Promise<void> {
    if (this.sealedFlag) return Promise.resolve();
    if (isTerminal(input)) this.sealedFlag = true;
    const entry = this.enqueue();
    entry.items = [this.encode(input, raw, parsed)];
    this.kick();
    return this.track(entry);
  }

  /**
   * Appends the events of one received chunk as one entry (numbered in order, stamped
   * with one time, written with one commit and published as one batch); resolves once
   * they are durable. Events after a terminal one are dropped.
   */
  appendBatch(items: readonly RelayedEvent[]): Promise<void> {
    if (this.sealedFlag || items.length === 0) return Promise.resolve();
    const entry = this.enqueue();
    const timestamp = this.now();
    const encoded: { input: EventInput; encoded: EncodedEvent }[] = [];
    for (const { event, raw, parsed } of items) {
      encoded.push(this.encode(event, raw, parsed, timestamp));
      if (isTerminal(event)) {
        this.sealedFlag = true;
        break;
      }
    }
    entry.items = encoded;
    this.kick();
    return this.track(entry);
  }

  /**
   * Reserves the last place of the run for events computed asynchronously (the learning
   * outcome and the terminal event): everything appended meanwhile is dropped.
   */
  appendTerminal(produce: () => Promise<EventInput[]>): Promise<void> {
    if (this.sealedFlag) return Promise.resolve();
    this.sealedFlag = true;
    const entry = this.enqueue();
    const filled = produce().then(
      (inputs) => inputs,
      (error: unknown): EventInput[] => [{ type: 'error', content: { message: error instanceof Error ? error.message : 'the turn failed' } }],
    );
    void filled.then((inputs) => {
      entry.items = inputs.map((input) => this.encode(input));
      this.kick();
    });
    return this.track(entry);
  }

  /** Resolves when every event appended so far is durable and published. */
  async idle(): Promise<void> {
    // Entries settle in order, so the last one settling means all did.
    for (let last; last !== this.last; ) {
      last = this.last;
      await last;
    }
  }

  private enqueue(): Entry {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Entry = { items: undefined, promise, resolve, reject };
    this.queue.push(entry);
    return entry;
  }

  private track(entry: Entry): Promise<void> {
    this.last = entry.promise.catch(() => undefined);
    return entry.promise;
  }

  private encode(input: EventInput, raw?: string, parsed?: unknown, timestamp = this.now()): { input: EventInput; encoded: EncodedEvent } {
    const seq = ++this.seq;
    if (input.type === 'text') this.text += input.content;
    return { input, encoded: { seq, type: input.type, json: encodeEvent(input, timestamp, raw, parsed) } };
  }

  private kick(): void {
    this.flushing ??= this.flush().finally(() => {
      this.flushing = undefined;
      // Entries filled while the last write was finishing.
      if (this.queue[0]?.items) this.kick();
    });
  }

  private async flush(): Promise<void> {
    for (;;) {
      const batch: Entry[] = [];
      while (this.queue[0]?.items) batch.push(this.queue.shift()!);
      if (batch.length === 0) return;
      const items = batch.length === 1 ? batch[0]!.items! : batch.flatMap((entry) => entry.items!);
      const events = items.map((item) => item.encoded);
      // The history lines and the SSE frames, from the same bytes.
      const { lines, frames } = batchBytes(events);
      let failure: unknown;
      try {
        await Promise.all([this.writer.write(events, lines), this.hooks.sideEffects?.(items)]);
        const last = events.at(-1)!;
        if (isTerminal(last)) await this.hooks.end(last, this.text);
      } catch (error) {
        failure = error;
        this.hooks.onError(error);
      }
      // Published even when the disk refused them: no subscriber or queued turn waits forever.
      this.run.publish(events, frames);
      for (const entry of batch) {
        if (failure === undefined) entry.resolve();
        else entry.reject(failure);
      }
    }
  }
}
