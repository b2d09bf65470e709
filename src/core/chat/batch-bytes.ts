/**
 * The bytes of a batch of events, written as they are numbered: each event's history
 * line (`{"seq":<n>,"event":<json>}`) and SSE frame (`id: <n>`, `data: <json>`, blank
 * line) go straight into two growing Buffers. An event's JSON is encoded once, into the
 * frame, and copied from there into the line. A relayed event whose text can be reused
 * (`reusable`) is copied from the container's text with the timestamp spliced in, and
 * no per-event string is made at all: building strings and encoding them per batch
 * cost more than the rest of the relay, and thousands of them waiting for an fsync
 * kept the garbage collector busy. A batch of events recognised in their bytes is sized
 * exactly beforehand (`sizeFor`), so its two Buffers are allocated once and kept as they
 * are; per event the only object made is one view of its text, copied from it into the
 * frame and the line, and the short pieces (framing, the sequence number) are written
 * byte by byte, which costs less than the view and native call of a `Buffer.copy`.
 */
import { encodeEvent, reusable, timestampTail } from './encoded.js';
import type { EventInput } from './types.js';

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
  target.set(source.subarray(start, end), at);
  return at + end - start;
}

/** Number of decimal digits of a non-negative integer. */
export function digitsOf(value: number): number {
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

/** Smallest buffer kept for reuse: smaller ones are slices of Node's shared pool. */
const SPARE_MIN = 64 * 1024;
/** Most bytes of spare buffers kept. */
const SPARE_LIMIT = 8 * 1024 * 1024;

/**
 * Buffers of history lines already written, kept for the lines of later batches. Memory
 * the process has written before costs nothing more to write again, while fresh memory
 * costs a page fault per page on its first write: measured in the relay, writing a
 * batch's bytes into fresh buffers cost as much again as building them.
 */
class SpareBuffers {
  private readonly spare: Buffer[] = [];
  private bytes = 0;

  /** A buffer of at least `capacity` bytes: a spare one when one is large enough. */
  take(capacity: number): Buffer {
    if (capacity < SPARE_MIN / 4) return Buffer.allocUnsafe(Math.max(64, capacity));
    for (let index = this.spare.length - 1; index >= 0; index--) {
      const buffer = this.spare[index]!;
      if (buffer.length < capacity) continue;
      this.spare.splice(index, 1);
      this.bytes -= buffer.length;
      return buffer;
    }
    // Sized to a power of two, so that buffers of batches of similar sizes serve each other.
    let size = SPARE_MIN;
    while (size < capacity) size *= 2;
    return Buffer.allocUnsafeSlow(size);
  }

  /** Takes back a buffer from `take` (or a view of one) that nothing reads any more. */
  give(bytes: Buffer): void {
    const memory = bytes.buffer;
    if (memory.byteLength < SPARE_MIN || this.bytes + memory.byteLength > SPARE_LIMIT) return;
    this.spare.push(Buffer.from(memory, 0, memory.byteLength));
    this.bytes += memory.byteLength;
  }
}

/** The spare buffers of history lines (one process, one event loop: shared by every run). */
const spareLines = new SpareBuffers();

/**
 * Hands back the history lines of a batch (`BatchBytes.finish().lines`) once they are
 * written and nothing reads them any more: their memory serves later batches.
 */
export function releaseLines(lines: Buffer): void {
  spareLines.give(lines);
}

/** A Buffer that grows as bytes are appended. */
class ByteWriter {
  buffer: Buffer;
  length = 0;

  /** `spare`: where its buffers come from and go back to when it grows (else fresh ones). */
  constructor(
    capacity: number,
    private readonly spare?: SpareBuffers,
  ) {
    this.buffer = spare ? spare.take(capacity) : Buffer.allocUnsafe(Math.max(64, capacity));
  }

  /** Makes room for `bytes` more bytes. */
  room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const size = Math.max(this.buffer.length * 2, this.length + bytes);
    const grown = this.spare ? this.spare.take(size) : Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.length);
    // Nothing else ever saw the old buffer.
    this.spare?.give(this.buffer);
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
const LINE_START = ascii('{"seq":');
const LINE_EVENT = ascii(',"event":');
const LINE_END = ascii('}\n');
const FRAME_START = ascii('id: ');
const FRAME_DATA = ascii('\ndata: ');
const FRAME_END = ascii('\n\n');
/** Room for the framing of one event around its JSON (a 16-digit sequence number included). */
const FRAMING = 48;
/** Bytes of a frame around its sequence number and JSON: `id: `, `\ndata: `, the blank line. */
const FRAME_FIXED = FRAME_START.length + FRAME_DATA.length + FRAME_END.length;
/** Bytes of a history line around its sequence number and JSON. */
const LINE_FIXED = LINE_START.length + LINE_EVENT.length + LINE_END.length;

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

/** How much room a batch needs (see `BatchBytes.sizeFor`). */
export interface BatchSize {
  frames: number;
  lines: number;
}

/** Builds the history lines and SSE frames of consecutive events. */
export class BatchBytes {
  private readonly lines: ByteWriter;
  private readonly frames: ByteWriter;

  /** @param size the room to reserve: `sizeFor` of the batch, or a guess (the buffers grow past it) */
  constructor(size: BatchSize = { frames: 128, lines: 128 }) {
    this.lines = new ByteWriter(size.lines, spareLines);
    this.frames = new ByteWriter(size.frames);
  }

  /**
   * The room a batch takes: `recognised` events of the byte form whose JSON texts hold
   * `recognisedBytes` bytes in all (exact, with `timestamp` spliced in), plus `others`
   * events parsed from `otherBytes` bytes of JSON (a guess), numbered up to `lastSeq`.
   */
  static sizeFor(recognised: number, recognisedBytes: number, others: number, otherBytes: number, lastSeq: number, timestamp: string): BatchSize {
    // A recognised event loses its closing brace to the timestamp's tail, which brings one.
    const perEvent = digitsOf(lastSeq) + tailOf(timestamp).length - 1;
    const guess = otherBytes + others * 96;
    return {
      frames: recognisedBytes + recognised * (perEvent + FRAME_FIXED) + guess,
      lines: recognisedBytes + recognised * (perEvent + LINE_FIXED) + guess,
    };
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
    lines.length = copyBytes(frames.buffer, jsonStart, jsonEnd, lines.buffer, lines.length);
    lines.put(LINE_END);
  }

  /**
   * Adds event `seq`, stamped with `timestamp`, whose JSON text (validated, canonical, one
   * line) is `source[start..end)`: copied as it is, the timestamp spliced in before its
   * closing brace, into the frame and the line at once (one view of the text for both
   * copies; the framing byte by byte).
   */
  addBytes(seq: number, source: Buffer, start: number, end: number, timestamp: string): void {
    const { frames, lines } = this;
    const tail = tailOf(timestamp);
    const digits = digitsOf(seq);
    const bytes = end - 1 - start + tail.length;
    frames.room(bytes + digits + FRAME_FIXED);
    lines.room(bytes + digits + LINE_FIXED);
    const frame = frames.buffer;
    const line = lines.buffer;
    let f = copyBytes(FRAME_START, 0, FRAME_START.length, frame, frames.length);
    let l = copyBytes(LINE_START, 0, LINE_START.length, line, lines.length);
    f = putInteger(frame, f, seq, digits);
    // The digits once: the line's are copied from the frame.
    for (let digit = f - digits; digit < f; digit++) line[l++] = frame[digit]!;
    f = copyBytes(FRAME_DATA, 0, FRAME_DATA.length, frame, f);
    l = copyBytes(LINE_EVENT, 0, LINE_EVENT.length, line, l);
    // A plain view (not a Buffer, which costs a species lookup), copied twice.
    const json = new Uint8Array(source.buffer, source.byteOffset + start, end - 1 - start);
    frame.set(json, f);
    line.set(json, l);
    f += json.length;
    l += json.length;
    frame.set(tail, f);
    line.set(tail, l);
    f += tail.length;
    l += tail.length;
    frame[f++] = 0x0a;
    frame[f++] = 0x0a;
    line[l++] = 0x7d;
    line[l++] = 0x0a;
    frames.length = f;
    lines.length = l;
  }

  /** The history lines and SSE frames added so far (views: copy what is kept). */
  finish(): { lines: Buffer; frames: Buffer } {
    return { lines: this.lines.bytes(), frames: this.frames.bytes() };
  }
}
