/**
 * The bytes of a batch of events, written as they are numbered: each event's history
 * line (`{"seq":<n>,"event":<json>}`) and SSE frame (`id: <n>`, `data: <json>`, blank
 * line) go straight into two growing Buffers. An event's JSON is encoded once, into the
 * frame, and copied from there into the line. A relayed event whose text can be reused
 * (`reusable`) is copied from the container's text with the timestamp spliced in, and
 * no per-event string is made at all: building strings and encoding them per batch
 * cost more than the rest of the relay, and thousands of them waiting for an fsync
 * kept the garbage collector busy.
 */
import { encodeEvent, reusable, timestampTail } from './encoded.js';
import type { EventInput } from './types.js';

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
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Appends a non-negative integer in decimal (room must have been made). */
  integer(value: number): void {
    let digits = 1;
    for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    const buffer = this.buffer;
    this.length += digits;
    let at = this.length;
    do {
      buffer[--at] = 0x30 + (value % 10);
      value = Math.floor(value / 10);
    } while (value > 0);
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
const LINE_START = ascii('{"seq":');
const LINE_EVENT = ascii(',"event":');
const LINE_END = ascii('}\n');
const FRAME_START = ascii('id: ');
const FRAME_DATA = ascii('\ndata: ');
const FRAME_END = ascii('\n\n');
/** Room for the framing of one event around its JSON (a 16-digit sequence number included). */
const FRAMING = 48;

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

/** Builds the history lines and SSE frames of consecutive events. */
export class BatchBytes {
  private readonly lines: ByteWriter;
  private readonly frames: ByteWriter;

  /**
   * @param expected roughly how many events will be added (sizes the first buffers)
   * @param jsonBytes when known, how many bytes their JSON texts hold (sizes them closely)
   */
  constructor(expected = 1, jsonBytes?: number) {
    // Each event's framing and timestamp add well under 80 bytes to its JSON.
    const capacity = jsonBytes === undefined ? expected * 128 : jsonBytes + expected * 80;
    this.lines = new ByteWriter(capacity);
    this.frames = new ByteWriter(capacity);
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
    const jsonStart = frames.length;
    frames.utf8(text);
    if (reuse) {
      // The container's object without its closing brace (and what follows it), then the timestamp.
      const buffer = frames.buffer;
      let end = frames.length;
      while (buffer[end - 1] !== 0x7d) end--;
      frames.length = end - 1;
      frames.put(tailOf(timestamp));
    }
    const jsonEnd = frames.length;
    frames.put(FRAME_END);
    this.lineFromFrame(seq, jsonStart, jsonEnd);
    return keepJson ? json : undefined;
  }

  /** The history line `{"seq":<seq>,"event":<json>}\n`, the JSON copied from the frame just written. */
  private lineFromFrame(seq: number, jsonStart: number, jsonEnd: number): void {
    const { lines, frames } = this;
    lines.room(jsonEnd - jsonStart + FRAMING);
    lines.put(LINE_START);
    lines.integer(seq);
    lines.put(LINE_EVENT);
    frames.buffer.copy(lines.buffer, lines.length, jsonStart, jsonEnd);
    lines.length += jsonEnd - jsonStart;
    lines.put(LINE_END);
  }

  /**
   * Adds event `seq`, stamped with `timestamp`, whose JSON text (validated, canonical, one
   * line) is `source[start..end)`: copied as it is, the timestamp spliced in before its
   * closing brace.
   */
  addBytes(seq: number, source: Buffer, start: number, end: number, timestamp: string): void {
    const { frames } = this;
    const tail = tailOf(timestamp);
    frames.room(end - 1 - start + tail.length + FRAMING);
    frames.put(FRAME_START);
    frames.integer(seq);
    frames.put(FRAME_DATA);
    const jsonStart = frames.length;
    frames.length += source.copy(frames.buffer, frames.length, start, end - 1);
    frames.put(tail);
    const jsonEnd = frames.length;
    frames.put(FRAME_END);
    this.lineFromFrame(seq, jsonStart, jsonEnd);
  }

  /** The history lines and SSE frames added so far (views: copy what is kept). */
  finish(): { lines: Buffer; frames: Buffer } {
    return { lines: this.lines.bytes(), frames: this.frames.bytes() };
  }
}
