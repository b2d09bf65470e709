/**
 * The reading of an event stream's bytes, chunk by chunk, for `streamSse`.
 *
 * A caller that gives `takeData` takes the common frames straight from the received
 * bytes: a frame that is exactly an optional `id: <digits>` line, one `data: <value>`
 * line and a blank line, all ended by LF, is offered as where its value starts, with no
 * string made, and the caller finds where the value ends as it reads it (no separate
 * search for the line's end). Every other frame (comments, other fields, several data
 * lines, a value `takeData` declines) goes to eventsource-parser whole; from a frame
 * with a CR on, the parser takes everything until the stream is between two frames
 * again. The parser is only ever fed from a frame boundary, so what is delivered, in what
 * order, is what the parser alone would deliver.
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

/** What the reader hands messages to (see `SseHandlers` in sse.ts). */
export interface SseMessageHandlers {
  onMessage(message: EventSourceMessage): boolean | void;
  takeData?: DataTaker;
}

/**
 * Offered the value of a plain frame, which starts at `bytes[start]`: returns where the
 * value ends (the index of the line break after it) when it took it, which it may only do
 * when the value ends its line and a blank line follows (`\n\n` at the returned index);
 * `-1` when it declines (the frame goes to the parser); `0` when the bytes end before it
 * can tell (the frame waits for the next chunk). It must decline a value holding a CR.
 */
export type DataTaker = (bytes: Buffer, start: number) => number;

const LF = 0x0a;
const CR = 0x0d;
const ID_FIELD = Buffer.from('id: ', 'latin1');
const DATA_FIELD = Buffer.from('data: ', 'latin1');
/** Bytes of an unfinished plain frame carried to the next chunk, at most: a longer one goes to the parser. */
const CARRY_LIMIT = 64 * 1024;

/** 1 when `bytes` holds `field` at `at`, 0 when it ends before saying, -1 when it does not. */
function fieldAt(bytes: Buffer, at: number, field: Buffer): number {
  for (let offset = 0; offset < field.length; offset++) {
    if (at + offset >= bytes.length) return 0;
    if (bytes[at + offset] !== field[offset]) return -1;
  }
  return 1;
}

/** True when `bytes[start..end)` holds a CR (a line end of its own in SSE). */
function holdsCr(bytes: Buffer, start: number, end: number): boolean {
  for (let at = start; at < end; at++) if (bytes[at] === CR) return true;
  return false;
}

/**
 * Takes the frames of `bytes` in order: plain ones go to `take`, other whole frames
 * with LF line ends to `other` (the parser), which returns false to stop. Returns where
 * the first frame it did not take begins: as `at` when the bytes end inside a frame (or
 * at their end, or it was told to stop), as `-at - 1` when a CR follows in that frame.
 */
function takeFrames(bytes: Buffer, take: DataTaker, other: (bytes: Buffer, start: number, end: number) => boolean): number {
  const length = bytes.length;
  let frame = 0;
  while (frame < length) {
    const end = plainFrameEnd(bytes, frame, take);
    if (end > 0) {
      frame = end;
      continue;
    }
    if (end === 0) return frame;
    // Not plain, or declined: the whole frame goes to the parser, when it is whole.
    const blank = bytes.indexOf('\n\n', frame, 'latin1');
    if (holdsCr(bytes, frame, blank < 0 ? length : blank)) return -frame - 1;
    if (blank < 0) return frame;
    const from = frame;
    frame = blank + 2;
    if (!other(bytes, from, frame)) return frame;
  }
  return frame;
}

/**
 * The end of the plain frame at `frame` once `take` took it; 0 when the bytes end
 * before saying; -1 when the frame is not plain or `take` declined it.
 */
function plainFrameEnd(bytes: Buffer, frame: number, take: DataTaker): number {
  const length = bytes.length;
  let at = frame;
  if (bytes[at] === 0x69) {
    // `id: `, compared byte by byte where the bytes hold it (the common case), else field by field.
    if (length - at > ID_FIELD.length) {
      if (bytes[at + 1] !== 0x64 || bytes[at + 2] !== 0x3a || bytes[at + 3] !== 0x20) return -1;
    } else {
      const id = fieldAt(bytes, at, ID_FIELD);
      if (id <= 0) return id;
    }
    at += ID_FIELD.length;
    const digits = at;
    while (at < length && bytes[at]! >= 0x30 && bytes[at]! <= 0x39) at++;
    if (at === length) return 0;
    if (at === digits || at - digits > 20 || bytes[at] !== LF) return -1;
    at++;
  }
  if (length - at > DATA_FIELD.length) {
    if (bytes[at] !== 0x64 || bytes[at + 1] !== 0x61 || bytes[at + 2] !== 0x74 || bytes[at + 3] !== 0x61 || bytes[at + 4] !== 0x3a || bytes[at + 5] !== 0x20) return -1;
  } else {
    const data = fieldAt(bytes, at, DATA_FIELD);
    if (data <= 0) return data;
  }
  const end = take(bytes, at + DATA_FIELD.length);
  return end > 0 ? end + 2 : end;
}

/**
 * True when `bytes` end with a blank line (its line end, CRLF or LF, right after another
 * line end): a stream cut there is between two events.
 */
function endsAtFrame(bytes: Buffer): boolean {
  let at = bytes.length - 1;
  if (at < 1 || bytes[at] !== LF) return false;
  at--;
  if (bytes[at] === CR) at--;
  return at >= 0 && (bytes[at] === LF || bytes[at] === CR);
}

/**
 * Reads an event stream fed chunk by chunk: plain frames go to `takeData`, all else
 * through eventsource-parser to `onMessage`, in stream order. Once a handler asked to
 * stop (`stopped`), nothing more is handed over.
 */
export class SseReader {
  stopped = false;
  private readonly parser: EventSourceParser;
  /** Buffer-backed decoding (a character split across chunks is held back): cheaper per chunk than TextDecoder's streaming mode. */
  private readonly decoder = new StringDecoder('utf8');
  private readonly takeData: DataTaker | undefined;
  /** Set while plain frames are taken from the bytes (the parser then holds nothing). */
  private plain: DataTaker | undefined;
  /** The start of an unfinished frame, held until the next chunk. */
  private carry: Buffer | undefined;
  /** Feeds a whole frame to the parser; false once a message asked to stop. */
  private readonly toParser = (bytes: Buffer, start: number, end: number): boolean => {
    this.parser.feed(this.decoder.write(bytes.subarray(start, end)));
    return !this.stopped;
  };

  constructor(handlers: SseMessageHandlers) {
    this.parser = createParser({
      onEvent: (message) => {
        if (!this.stopped && handlers.onMessage(message) === true) this.stopped = true;
      },
    });
    this.takeData = handlers.takeData;
    this.plain = this.takeData;
  }

  /** Reads the next chunk of the stream. */
  feed(chunk: Buffer): void {
    if (this.stopped) return;
    const plain = this.plain;
    if (!plain) {
      this.parser.feed(this.decoder.write(chunk));
      if (this.takeData && endsAtFrame(chunk)) this.plain = this.takeData;
      return;
    }
    const bytes = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    const taken = takeFrames(bytes, plain, this.toParser);
    if (this.stopped) return;
    const at = taken < 0 ? -taken - 1 : taken;
    if (taken >= 0 && bytes.length - at <= CARRY_LIMIT) {
      if (at < bytes.length) this.carry = Buffer.from(bytes.subarray(at));
      return;
    }
    // From a frame boundary on, the parser takes over until the stream is between frames again.
    this.parser.feed(this.decoder.write(bytes.subarray(at)));
    if (!endsAtFrame(bytes)) this.plain = undefined;
  }

  /** Reads the end of the stream (an unfinished last frame is dropped, as the parser does). */
  end(): void {
    if (this.stopped) return;
    if (this.carry) this.parser.feed(this.decoder.write(this.carry));
    this.carry = undefined;
    this.parser.feed(this.decoder.end());
  }
}
