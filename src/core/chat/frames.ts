/**
 * Published events held as the bytes they are sent as. A run keeps what it published for
 * late subscribers and replays as one `FrameBatch` per published batch: the batch's SSE
 * frames in one Buffer (outside the JavaScript heap, so a flood of events adds nothing
 * for the garbage collector to trace) and a few numbers about them. Events are decoded
 * back from the frames only when someone asks for them (a replay from the middle of a
 * batch, a history page, the sync endpoint).
 */
import { createParser } from 'eventsource-parser';
import { sseFrame, type EncodedEvent } from './encoded.js';
import { EVENT_TYPES, isTerminal, type EventType } from './types.js';

/** One bit per event type, for the set of types a batch holds. */
const TYPE_BITS: Readonly<Record<EventType, number>> = Object.fromEntries(EVENT_TYPES.map((type, index) => [type, 1 << index])) as Record<EventType, number>;

/** The bit of `type` in {@link FrameBatch.types}. */
export function typeBit(type: EventType): number {
  return TYPE_BITS[type];
}

/** The type of an event from its JSON text. */
export function eventTypeOf(json: string): EventType {
  return (JSON.parse(json) as { type: EventType }).type;
}

/**
 * Events published together: consecutively numbered events `first`..`last` as SSE
 * frames (`id: <seq>`, `data: <json>`, blank line each), in one Buffer.
 */
export class FrameBatch {
  /**
   * @param first sequence number of the first event
   * @param last sequence number of the last event
   * @param frames the events' SSE frames, in order
   * @param types the bits ({@link typeBit}) of the types the batch holds
   * @param lastType the type of the last event
   */
  constructor(
    readonly first: number,
    readonly last: number,
    readonly frames: Buffer,
    readonly types: number,
    readonly lastType: EventType,
  ) {}

  /** A batch of events that exist as objects (a store's read, a recovery's event). */
  static of(events: readonly EncodedEvent[]): FrameBatch {
    if (events.length === 0) throw new Error('a batch holds at least one event');
    let text = '';
    let types = 0;
    for (const event of events) {
      text += sseFrame(event);
      types |= TYPE_BITS[event.type];
    }
    const last = events.at(-1)!;
    return new FrameBatch(events[0]!.seq, last.seq, Buffer.from(text, 'utf8'), types, last.type);
  }

  /** How many events the batch holds. */
  get length(): number {
    return this.last - this.first + 1;
  }

  /** True when the batch ends the run. */
  get terminal(): boolean {
    return isTerminal({ type: this.lastType });
  }

  /** True when the batch holds an event of one of `types`. */
  holds(...types: EventType[]): boolean {
    for (const type of types) if ((this.types & TYPE_BITS[type]) !== 0) return true;
    return false;
  }

  /** The frames of the events after `afterSeq` (all of them when it is before the batch). */
  framesAfter(afterSeq: number): Buffer {
    if (afterSeq < this.first) return this.frames;
    if (afterSeq >= this.last) return this.frames.subarray(this.frames.length);
    // Each frame ends with a blank line, and event JSON never holds a line break.
    let start = 0;
    for (let skip = afterSeq - this.first + 1; skip > 0; skip--) start = this.frames.indexOf('\n\n', start) + 2;
    return this.frames.subarray(start);
  }

  /** The events after `afterSeq`, decoded from the frames. */
  events(afterSeq = 0): EncodedEvent[] {
    return decodeFrames(this.framesAfter(afterSeq).toString('utf8'));
  }

  /** The last event, decoded from its frame alone. */
  lastEvent(): EncodedEvent {
    const end = this.frames.length - 2;
    const start = this.frames.lastIndexOf('\n\nid: ', end - 1);
    return decodeFrames(this.frames.toString('utf8', start < 0 ? 0 : start + 2))[0]!;
  }
}

/**
 * The events of SSE frames written by `sseFrame`, read with eventsource-parser:
 * comments (a run file's location) are skipped, and so is an unfinished last frame (a
 * write cut short by a crash), which the parser never completes.
 */
export function decodeFrames(text: string): EncodedEvent[] {
  const events: EncodedEvent[] = [];
  const parser = createParser({
    onEvent({ id, data }) {
      // Every frame org writes is numbered; one without a number is no event of a run.
      if (id !== undefined && /^\d+$/.test(id)) events.push({ seq: Number(id), type: eventTypeOf(data), json: data });
    },
  });
  parser.feed(text);
  return events;
}
