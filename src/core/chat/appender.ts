/**
 * The one ordered appender of a run: every event of a turn goes through `append`,
 * `appendBatch` or `appendTerminal`, which number it, stamp it and serialise it once, in
 * call order, into its SSE frame (a relayed event's JSON is the container's text with
 * the timestamp spliced in, see `encodeEvent`); the frames of a batch are encoded to
 * bytes together, once. Batches are then written
 * (group-committed by the store), their side effects recorded, and only then published
 * to the run's subscribers, in number order. The first terminal event seals the run:
 * anything appended after it is dropped.
 *
 * Nothing per event outlives its batch on the JavaScript heap: the batch becomes one
 * Buffer of SSE frames (written to the run's file, published to its streams and kept by
 * the run), and the start of the agent's text, for the end record, one string per batch.
 */
import { encodeEvent, type EncodedEvent } from './encoded.js';
import { FrameBatch, typeBit } from './frames.js';
import type { Run } from './run.js';
import { END_TEXT, type RunEventWriter } from './store.js';
import { headOf } from '../util/text.js';
import { isTerminal, type EventInput, type EventType, type RelayedEvent } from './types.js';

/** What the appender asks of the engine around each batch. */
export interface AppenderHooks {
  /**
   * Durable side effects of a batch's decisions and milestones (the workspace log),
   * written beside its events. Called only for batches that hold some.
   */
  logged?(events: readonly EventInput[]): Promise<void> | undefined;
  /**
   * Records the end of the run once its terminal event is durable, with the agent's
   * text: whole, or its first `END_TEXT` characters when `truncated`.
   */
  end(terminal: EncodedEvent, text: string, truncated: boolean): Promise<void>;
  /** Reports a failure to write (the events are published anyway, so no one waits forever). */
  onError(error: unknown): void;
}

/** The events of one append, serialised. */
interface Entry {
  /** False while a reserved terminal place is being computed. */
  ready: boolean;
  first: number;
  last: number;
  /** The SSE frames being written, until the entry is complete. */
  building: string;
  /** The SSE frames, once the entry is complete. */
  frameBytes: Buffer | undefined;
  types: number;
  lastType: EventType;
  /** JSON of the entry's terminal event, for the end record. */
  lastJson: string;
  /** Decisions and milestones, for the `logged` hook. */
  logged: EventInput[] | undefined;
  /** Settles once the entry is durable and published. */
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Numbers, persists and publishes a run's events, in one order. */
export class RunAppender {
  private seq = 0;
  /** The start of the agent's text (up to `END_TEXT` characters), one piece per entry. */
  private readonly text: string[] = [];
  /** Characters in `text`. */
  private textLength = 0;
  /** Set once the agent's text went past `END_TEXT` characters: no more of it is kept. */
  private textCut = false;
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
    const text = this.encode(entry, input, this.now(), raw, parsed);
    if (text) this.keepText(text);
    this.complete(entry);
    return this.track(entry);
  }

  /**
   * Appends the events of one received chunk as one entry (numbered in order, stamped
   * with one time, written with one commit and published as one batch); resolves once
   * they are durable. Events after a terminal one are dropped.
   */
  appendBatch(items: readonly RelayedEvent[]): Promise<void> {
    if (this.sealedFlag || items.length === 0) return Promise.resolve();
    const timestamp = this.now();
    const entry = this.enqueue();
    const pieces: string[] = [];
    // The text is joined only while it is kept (the start of it, up to the piece that
    // passes the limit, which marks it cut): the rest is in the frames.
    let room = this.textCut ? -1 : END_TEXT - this.textLength;
    for (const { event, raw, parsed } of items) {
      const piece = this.encode(entry, event, timestamp, raw, parsed);
      if (piece && room >= 0) {
        pieces.push(piece);
        room -= piece.length;
      }
      if (isTerminal(event)) {
        this.sealedFlag = true;
        break;
      }
    }
    // One flat string per batch, not a chain of one piece per event.
    if (pieces.length > 0) this.keepText(pieces.length === 1 ? pieces[0]! : pieces.join(''));
    this.complete(entry);
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
      const timestamp = this.now();
      for (const input of inputs) {
        const text = this.encode(entry, input, timestamp);
        if (text) this.keepText(text);
      }
      this.complete(entry);
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

  /** Keeps `piece` of the agent's text, as far as the first `END_TEXT` characters go. */
  private keepText(piece: string): void {
    if (this.textCut) return;
    const room = END_TEXT - this.textLength;
    if (piece.length > room) {
      piece = headOf(piece, room);
      this.textCut = true;
    }
    this.text.push(piece);
    this.textLength += piece.length;
  }

  private enqueue(): Entry {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: Entry = { ready: false, first: this.seq + 1, last: this.seq, building: '', frameBytes: undefined, types: 0, lastType: 'text', lastJson: '', logged: undefined, promise, resolve, reject };
    this.queue.push(entry);
    return entry;
  }

  private track(entry: Entry): Promise<void> {
    this.last = entry.promise.catch(() => undefined);
    return entry.promise;
  }

  /** Numbers and serialises one event into `entry`; returns its text when it is a `text` event. */
  private encode(entry: Entry, input: EventInput, timestamp: string, raw?: string, parsed?: unknown): string | undefined {
    const seq = ++this.seq;
    if (entry.last < entry.first) entry.first = seq;
    const json = encodeEvent(input, timestamp, raw, parsed);
    // The frame, as `sseFrame` writes it: the JSON is encoded to bytes once, with the batch's.
    entry.building += `id: ${seq}\ndata: ${json}\n\n`;
    entry.last = seq;
    entry.types |= typeBit(input.type);
    entry.lastType = input.type;
    // Kept for the terminal event only: a relayed event's text is a slice of the whole
    // received chunk, which it would keep alive until the batch is written.
    if (isTerminal(input)) entry.lastJson = json;
    if (input.type === 'decision' || input.type === 'milestone') (entry.logged ??= []).push(input);
    return input.type === 'text' ? input.content : undefined;
  }

  /** Marks an entry complete: its bytes are final and it may be written. */
  private complete(entry: Entry): void {
    entry.frameBytes = Buffer.from(entry.building, 'utf8');
    entry.building = '';
    entry.ready = true;
    this.kick();
  }

  private kick(): void {
    this.flushing ??= this.flush().finally(() => {
      this.flushing = undefined;
      // Entries filled while the last write was finishing.
      if (this.queue[0]?.ready) this.kick();
    });
  }

  private async flush(): Promise<void> {
    for (;;) {
      const batch: Entry[] = [];
      while (this.queue[0]?.ready) {
        const entry = this.queue.shift()!;
        // A reserved place that produced nothing holds no event.
        if (entry.last >= entry.first) batch.push(entry);
        else entry.resolve();
      }
      if (batch.length === 0) return;
      // Each entry's frames are used as they are, never joined: written to the file in one
      // vectored write, published to the run (and the streams) as one batch each, kept as
      // they are unless they fill too little of their memory.
      const published: FrameBatch[] = [];
      let logged: EventInput[] | undefined;
      for (const entry of batch) {
        published.push(new FrameBatch(entry.first, entry.last, ownSized(entry.frameBytes!), entry.types, entry.lastType));
        entry.frameBytes = undefined;
        if (entry.logged) (logged ??= []).push(...entry.logged);
      }
      const tail = batch.at(-1)!;
      let failure: unknown;
      try {
        await Promise.all([this.writer.write(published), logged && this.hooks.logged?.(logged)]);
        if (published.at(-1)!.terminal) await this.hooks.end({ seq: tail.last, type: tail.lastType, json: tail.lastJson }, this.text.join(''), this.textCut);
      } catch (error) {
        failure = error;
        this.hooks.onError(error);
      }
      // Published even when the disk refused them: no subscriber or queued turn waits forever.
      this.run.publishAll(published);
      for (const entry of batch) {
        if (failure === undefined) entry.resolve();
        else entry.reject(failure);
      }
    }
  }
}

/** `bytes` itself when it fills most of its memory, else a copy of its own size (for bytes kept long). */
function ownSized(bytes: Buffer): Buffer {
  return bytes.length * 4 >= bytes.buffer.byteLength * 3 ? bytes : Buffer.from(bytes);
}
