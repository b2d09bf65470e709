/**
 * The bytes of a batch of events, written as they are numbered: each event's SSE frame
 * (`id: <n>`, `data: <json>`, blank line) goes straight into one Buffer, which is both
 * what the run's file gets and what its streams get. An event's JSON is encoded once,
 * into the frame. A relayed event whose text can be reused (`reusable`) is copied from
 * the container's text with the timestamp spliced in, and no per-event string is made:
 * building strings and encoding them per batch cost more than the rest of the relay,
 * and thousands of them waiting for an fsync kept the garbage collector busy. The
 * Buffer is sized for the batch beforehand (`sizeFor`), so it rarely grows; the short
 * pieces (framing, the sequence number) are written byte by byte, which costs less than
 * the view and native call of a `Buffer.copy`.
 */
import { encodeEvent, reusable, timestampTail } from './encoded.js';
import type { EventInput, RelayedEvent } from './types.js';

/**
 * Below this many bytes a copy is a loop in JavaScript (the framing around an event): a
 * native copy of a part of a Buffer costs a view object and a call, worth it for more.
 */
const SHORT_COPY = 16;

/** Copies `source[start..end)` into `target` at `at`; returns where the copy ends in `target`. */
function copyBytes(source: Uint8Array, start: number, end: number, target: Buffer, at: number): number {
  if (end - start < SHORT_COPY) {
    for (let index = start; index < end; index++) target[at++] = source[index]!;
    return at;
  }
  // A plain view (not a Buffer, whose subarray costs a species lookup).
  target.set(new Uint8Array(source.buffer, source.byteOffset + start, end - start), at);
  return at + end - start;
}

/** Number of decimal digits of a non-negative integer. */
function digitsOf(value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  return digits;
}

/** Writes a non-negative integer of `digits` digits in decimal at `at`; returns where it ends. */
function putInteger(target: Buffer, at: number, value: number, digits: number): number {
  const end = at + digits;
  let index = end;
  do {
    target[--index] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  } while (index > at);
  return end;
}

/** A Buffer that grows as bytes are appended. */
class ByteWriter {
  buffer: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  /** Makes room for `bytes` more bytes. */
  room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** Appends bytes (room must have been made). */
  put(bytes: Uint8Array): void {
    this.length = copyBytes(bytes, 0, bytes.length, this.buffer, this.length);
  }

  /** Appends a non-negative integer in decimal (room must have been made). */
  integer(value: number): void {
    this.length = putInteger(this.buffer, this.length, value, digitsOf(value));
  }

  /** Appends text as UTF-8 (room must have been made: three bytes per character). */
  utf8(text: string): void {
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** The bytes written (a view of the growing buffer: copy them to keep them). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

const ascii = (text: string) => Buffer.from(text, 'latin1');
const FRAME_START = ascii('id: ');
const FRAME_DATA = ascii('\ndata: ');
const FRAME_END = ascii('\n\n');
/** Room for the framing of one event around its JSON (a 16-digit sequence number included). */
const FRAMING = 48;
/** Room for one event's framing and timestamp (`,"timestamp":"<24 characters>"}`) besides its JSON. */
const PER_EVENT = FRAMING + 48;
/** The characters guessed for the JSON of an event built rather than received. */
const BUILT_EVENT = 96;

/** The timestamp tail of the last timestamp, as bytes: the events of a batch share one. */
let lastTimestamp = '';
let lastTail = Buffer.alloc(0);

/** `,"timestamp":"…"}` of `timestamp`, as bytes (made once per distinct timestamp). */
function tailOf(timestamp: string): Buffer {
  if (timestamp !== lastTimestamp) {
    lastTimestamp = timestamp;
    lastTail = ascii(timestampTail(timestamp));
  }
  return lastTail;
}

/** Builds the SSE frames of consecutive events. */
export class BatchBytes {
  private readonly frames: ByteWriter;

  /** @param size the bytes to reserve: `sizeFor` of the batch, or a guess (the buffer grows past it) */
  constructor(size = 128) {
    this.frames = new ByteWriter(size);
  }

  /**
   * The room to reserve for the frames of `events`: their JSON texts as received (as
   * many bytes as characters, the common case), the framing and timestamp of each, and
   * the worst case of the longest one, which `add` makes room for before writing it.
   */
  static sizeFor(events: readonly RelayedEvent[]): number {
    let chars = 0;
    let longest = 0;
    for (const { raw } of events) {
      const length = raw?.length ?? BUILT_EVENT;
      chars += length;
      if (length > longest) longest = length;
    }
    return chars + events.length * PER_EVENT + longest * 3 + FRAMING + 64;
  }

  /**
   * Adds event `seq`, stamped with `timestamp`. `raw` is the JSON text the event was
   * parsed from and `parsed` that parse, when it was relayed (reused when it can be).
   * Returns the event's JSON text when `keepJson` asks for it (a terminal event's end record).
   */
  add(seq: number, input: EventInput, timestamp: string, raw?: string, parsed?: unknown, keepJson = false): string | undefined {
    const { frames } = this;
    let json: string | undefined;
    let text: string;
    let reuse = false;
    if (!keepJson && reusable(input, raw, parsed)) {
      text = raw;
      reuse = true;
    } else {
      text = json = encodeEvent(input, timestamp, raw, parsed);
    }
    // The frame: `id: <seq>\ndata: <json>\n\n`, the JSON encoded once, here.
    frames.room(text.length * 3 + FRAMING + 64);
    frames.put(FRAME_START);
    frames.integer(seq);
    frames.put(FRAME_DATA);
    frames.utf8(text);
    if (reuse) {
      // The container's object without its closing brace (and what follows it), then the timestamp.
      const buffer = frames.buffer;
      let end = frames.length;
      while (buffer[end - 1] !== 0x7d) end--;
      frames.length = end - 1;
      frames.put(tailOf(timestamp));
    }
    frames.put(FRAME_END);
    return keepJson ? json : undefined;
  }

  /** The SSE frames added so far (a view: copy what is kept). */
  finish(): Buffer {
    return this.frames.bytes();
  }
}
