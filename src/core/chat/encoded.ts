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
  if (raw !== undefined && parsed !== undefined && !/[\r\n]/.test(raw) && isCanonical(parsed, input)) {
    const end = raw.lastIndexOf('}');
    if (end > 0) return `${raw.slice(0, end)},"timestamp":${JSON.stringify(timestamp)}}`;
  }
  return JSON.stringify({ type: input.type, content: input.content, timestamp });
}

/** True when `parsed` (the untrusted object) has exactly the members of the validated event. */
function isCanonical(parsed: unknown, input: EventInput): boolean {
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

/** Approximate memory held by an encoded event, for byte-bounded caches. */
export function encodedBytes(encoded: EncodedEvent): number {
  return 64 + encoded.json.length * 2;
}
