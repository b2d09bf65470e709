/**
 * Events serialised once. A run's event is turned into its JSON text exactly once, when
 * it is numbered; the history line, the SSE frame and the replay all reuse that text.
 * A relayed event whose JSON already is the canonical `{type, content}` object is not
 * even serialised again: the timestamp is spliced into the bytes the container sent.
 */
import type { ChatEvent, EventInput } from './types.js';

/** A numbered event with its JSON text (`{"type":…,"content":…,"timestamp":…}`). */
export interface EncodedEvent {
  seq: number;
  type: EventInput['type'];
  json: string;
}

/**
 * The JSON text of `input` stamped with `timestamp`. `raw` is the JSON the event was
 * parsed from, when known: it is reused when it holds exactly the members of `input`
 * (so nothing was defaulted or dropped by validation).
 */
export function encodeEvent(input: EventInput, timestamp: string, raw?: string, parsed?: unknown): string {
  // A line break (whitespace of pretty-printed JSON) would split the SSE frame and the history line.
  if (raw !== undefined && parsed !== undefined && raw.indexOf('\n') < 0 && raw.indexOf('\r') < 0 && isCanonical(parsed, input)) {
    const end = raw.lastIndexOf('}');
    if (end > 0) return `${raw.slice(0, end)},"timestamp":${timestampJson(timestamp)}}`;
  }
  return JSON.stringify({ type: input.type, content: input.content, timestamp });
}

/** The last timestamp serialised, and its JSON: the events of a batch share one. */
let lastTimestamp = '';
let lastTimestampJson = '""';

function timestampJson(timestamp: string): string {
  if (timestamp !== lastTimestamp) {
    lastTimestamp = timestamp;
    lastTimestampJson = JSON.stringify(timestamp);
  }
  return lastTimestampJson;
}

/** True when `parsed` (the untrusted object) has exactly the members of the validated event. */
function isCanonical(parsed: unknown, input: EventInput): boolean {
  // `parseEvent` hands the parsed object itself over as the event only when it has exactly
  // `type` and a string `content` (the relay's common case): canonical by construction.
  if (parsed === input && typeof input.content === 'string') return true;
  if (typeof parsed !== 'object' || parsed === null) return false;
  const outer = Object.keys(parsed);
  if (outer.length !== 2 || !('type' in parsed) || !('content' in parsed)) return false;
  const content = (parsed as { content: unknown }).content;
  if (typeof input.content === 'string') return typeof content === 'string';
  if (typeof content !== 'object' || content === null || Array.isArray(content)) return false;
  const expected = Object.keys(input.content);
  const given = Object.keys(content);
  return given.length === expected.length && expected.every((key) => Object.prototype.hasOwnProperty.call(content, key));
}

/** The event of an encoded event, parsed back (for JSON responses and history pages). */
export function decodeEvent(encoded: EncodedEvent): ChatEvent {
  return JSON.parse(encoded.json) as ChatEvent;
}

/** An SSE frame: `id: <seq>` and `data: <json>` lines and a blank line. */
export function sseFrame(encoded: EncodedEvent): string {
  return `id: ${encoded.seq}\ndata: ${encoded.json}\n\n`;
}

/**
 * The history line of an event in its run's file: `{"seq":<n>,"event":<json>}`, so that
 * the event's own JSON text can be cut out again without parsing it.
 */
export function historyLine(encoded: EncodedEvent): string {
  return `{"seq":${encoded.seq},"event":${encoded.json}}\n`;
}

/** The bytes of a batch of events, both ways they leave the engine. */
export interface BatchBytes {
  /** The history lines (`historyLine` of each event), for the run's file. */
  lines: Buffer;
  /** The SSE frames (`sseFrame` of each event), for every stream following the run. */
  frames: Buffer;
}

/** Room for the framing of one event around its JSON (a sequence number of up to 16 digits included). */
const FRAMING_BYTES = 48;

/**
 * The history lines and SSE frames of a batch, made from the same bytes: each event's
 * JSON text is encoded to UTF-8 once, and both outputs copy those bytes between their
 * ASCII framing (cheaper than building and encoding two strings per event).
 */
export function batchBytes(events: readonly EncodedEvent[]): BatchBytes {
  let room = 0;
  for (const event of events) room += event.json.length * 3;
  const body = Buffer.allocUnsafe(room);
  const ends = new Uint32Array(events.length);
  let size = 0;
  for (let index = 0; index < events.length; index++) {
    size += body.write(events[index]!.json, size, 'utf8');
    ends[index] = size;
  }
  const lines = Buffer.allocUnsafe(size + events.length * FRAMING_BYTES);
  const frames = Buffer.allocUnsafe(size + events.length * FRAMING_BYTES);
  let line = 0;
  let frame = 0;
  let start = 0;
  for (let index = 0; index < events.length; index++) {
    const seq = events[index]!.seq;
    const end = ends[index]!;
    line += lines.write(`{"seq":${seq},"event":`, line, 'latin1');
    line += body.copy(lines, line, start, end);
    lines[line++] = 0x7d; // }
    lines[line++] = 0x0a;
    frame += frames.write(`id: ${seq}\ndata: `, frame, 'latin1');
    frame += body.copy(frames, frame, start, end);
    frames[frame++] = 0x0a;
    frames[frame++] = 0x0a;
    start = end;
  }
  return { lines: lines.subarray(0, line), frames: frames.subarray(0, frame) };
}

/** Approximate memory held by an encoded event, for byte-bounded caches. */
export function encodedBytes(encoded: EncodedEvent): number {
  return 64 + encoded.json.length * 2;
}
