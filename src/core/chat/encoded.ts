/**
 * Events serialised once. A run's event is turned into its JSON text exactly once, when
 * it is numbered (into its SSE frame, by the run's appender); the frame, which is also
 * what the run's file holds, and the replay carry that text. A relayed event whose JSON
 * already holds exactly the validated members is not even serialised again: the
 * timestamp is spliced into the text the container sent.
 */
import type { ChatEvent, EventInput } from './types.js';

/** A numbered event with its JSON text (`{"type":…,"content":…,"timestamp":…}`). */
export interface EncodedEvent {
  seq: number;
  type: EventInput['type'];
  json: string;
}

/**
 * The JSON text of `input` stamped with `timestamp`. `raw` is the JSON text the event was
 * parsed from (as `parsed`), when known: it is reused, the timestamp spliced in before
 * its closing brace, when it holds exactly the validated members (nothing was defaulted
 * or dropped by validation) and no line break (whitespace of pretty-printed JSON would
 * split the SSE frame).
 */
export function encodeEvent(input: EventInput, timestamp: string, raw?: string, parsed?: unknown): string {
  if (raw !== undefined && isCanonical(parsed, input) && !LINE_BREAK.test(raw)) {
    const close = raw.lastIndexOf('}');
    if (close > 0) return `${raw.slice(0, close)}${timestampTail(timestamp)}`;
  }
  return JSON.stringify({ type: input.type, content: input.content, timestamp });
}

/** A line break, which ends a line of an SSE frame. */
const LINE_BREAK = /[\n\r]/;

/** The last timestamp serialised, and its tail: the events of a batch share one. */
let lastTimestamp = '';
let lastTail = ',"timestamp":""}';

/** `,"timestamp":"<timestamp>"}`: what closes a reused JSON text instead of its brace. */
export function timestampTail(timestamp: string): string {
  if (timestamp !== lastTimestamp) {
    lastTimestamp = timestamp;
    lastTail = `,"timestamp":${JSON.stringify(timestamp)}}`;
  }
  return lastTail;
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

/** A run's agent text: the contents of its `text` events, joined. */
export function runText(events: readonly EncodedEvent[]): string {
  let text = '';
  for (const event of events) if (event.type === 'text') text += (decodeEvent(event) as { content: string }).content;
  return text;
}

/** An SSE frame: `id: <seq>` and `data: <json>` lines and a blank line. */
export function sseFrame(encoded: EncodedEvent): string {
  return `id: ${encoded.seq}\ndata: ${encoded.json}\n\n`;
}

/** Approximate memory held by an encoded event, for byte-bounded caches. */
export function encodedBytes(encoded: EncodedEvent): number {
  return 64 + encoded.json.length * 2;
}
