/**
 * The bytes of a batch of events, written as they are numbered: each event's history
 * line (`{"seq":<n>,"event":<json>}`) and SSE frame (`id: <n>`, `data: <json>`, blank
 * line) go straight into two growing Buffers. A relayed event whose text can be reused
 * (`reusable`) is copied from the container's text with the timestamp spliced in, and
 * no per-event string is made at all: building strings and encoding them per batch
 * cost more than the rest of the relay, and thousands of them waiting for an fsync
 * kept the garbage collector busy.
 */
import { encodeEvent, reusable, timestampTail } from './encoded.js';
import type { EventInput } from './types.js';

/** A Buffer that grows as bytes are appended. */
class ByteWriter {
  private buffer: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(64, capacity));
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  /** Appends text known to be ASCII (framing, numbers, timestamps), byte by byte. */
  ascii(text: string): void {
    this.room(text.length);
    const buffer = this.buffer;
    let at = this.length;
    for (let index = 0; index < text.length; index++) buffer[at++] = text.charCodeAt(index);
    this.length = at;
  }

  /** Appends any text as UTF-8. */
  utf8(text: string): void {
    this.room(text.length * 3);
    this.length += this.buffer.write(text, this.length, 'utf8');
  }

  /** Appends a JSON object's text without its closing brace (and any whitespace after it). */
  openObject(json: string): void {
    this.utf8(json);
    while (this.buffer[this.length - 1] !== 0x7d) this.length--;
    this.length--;
  }

  /** The bytes written (a view of the growing buffer: copy them to keep them). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Builds the history lines and SSE frames of consecutive events. */
export class BatchBytes {
  private readonly lines: ByteWriter;
  private readonly frames: ByteWriter;

  /** @param expected roughly how many events will be added (sizes the first buffers) */
  constructor(expected = 1) {
    this.lines = new ByteWriter(expected * 128);
    this.frames = new ByteWriter(expected * 128);
  }

  /**
   * Adds event `seq`, stamped with `timestamp`. `raw` is the JSON text the event was
   * parsed from and `parsed` that parse, when it was relayed (reused when it can be).
   * Returns the event's JSON text when `keepJson` asks for it (a terminal event's end record).
   */
  add(seq: number, input: EventInput, timestamp: string, raw?: string, parsed?: unknown, keepJson = false): string | undefined {
    const number = String(seq);
    const { lines, frames } = this;
    if (!keepJson && reusable(input, raw, parsed)) {
      const tail = timestampTail(timestamp);
      lines.ascii('{"seq":');
      lines.ascii(number);
      lines.ascii(',"event":');
      lines.openObject(raw);
      lines.ascii(tail);
      lines.ascii('}\n');
      frames.ascii('id: ');
      frames.ascii(number);
      frames.ascii('\ndata: ');
      frames.openObject(raw);
      frames.ascii(tail);
      frames.ascii('\n\n');
      return undefined;
    }
    const json = encodeEvent(input, timestamp, raw, parsed);
    lines.ascii('{"seq":');
    lines.ascii(number);
    lines.ascii(',"event":');
    lines.utf8(json);
    lines.ascii('}\n');
    frames.ascii('id: ');
    frames.ascii(number);
    frames.ascii('\ndata: ');
    frames.utf8(json);
    frames.ascii('\n\n');
    return keepJson ? json : undefined;
  }

  /** The history lines and SSE frames added so far (views: copy what is kept). */
  finish(): { lines: Buffer; frames: Buffer } {
    return { lines: this.lines.bytes(), frames: this.frames.bytes() };
  }
}
