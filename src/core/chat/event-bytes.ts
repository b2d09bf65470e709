/**
 * Relayed events validated where they lie in the received bytes. The relay's common
 * case, a container's `{"type":"text","content":"…"}` (or any type whose content is a
 * plain string, see `STRING_EVENT_TYPES`), is checked byte by byte, without decoding it
 * to a string or parsing it to an object: the exact text `parseEvent` would accept and
 * hand over unchanged (the two members in that order, no whitespace, a well-formed JSON
 * string in valid UTF-8). Such an event is then written to the history and the stream as
 * the bytes it arrived in, with its sequence number and timestamp spliced in (see
 * `BatchBytes.addBytes`). Anything else — another shape, another type, bad JSON — is not
 * recognised here and goes through `JSON.parse` and `parseEvent`, which accept or refuse
 * it with their own message, so what is accepted and every error stay the same.
 */
import { isUtf8 } from 'node:buffer';
import { STRING_EVENT_TYPES } from './events.js';
import { typeBit } from './frames.js';
import type { EventInput, EventType, RelayedBytes } from './types.js';

/** `{"type":"`, the start every prefix (`{"type":"<type>","content":"`) shares. */
const COMMON = Buffer.from('{"type":"', 'latin1');
/** The rest of each prefix after `COMMON`: `<type>","content":"`. */
const TYPE_TAILS = STRING_EVENT_TYPES.map((type) => Buffer.from(`${type}","content":"`, 'latin1'));
/** Each type's name, as bytes. */
const TYPE_NAMES = STRING_EVENT_TYPES.map((type) => Buffer.from(type, 'latin1'));
/** Bytes of the longest prefix. */
const LONGEST_PREFIX = COMMON.length + Math.max(...TYPE_TAILS.map((tail) => tail.length));
/** The indexes of the types starting with each byte: one or two candidates to compare, not every type. */
const BY_FIRST_BYTE: readonly (readonly number[])[] = Array.from({ length: 256 }, (_, byte) =>
  STRING_EVENT_TYPES.flatMap((type, index) => (type.charCodeAt(0) === byte ? [index] : [])),
);

/** Flag of a recognised event whose content holds a backslash escape. */
export const ESCAPED = 0x100;
/** Mask of the type's index in `STRING_EVENT_TYPES`. */
const TYPE_MASK = 0xff;

const QUOTE = 0x22;
const CLOSE = 0x7d;

/** What each byte is inside a JSON string: plain, refused (a quote or a control character), a backslash, or part of a multi-byte character. */
const PLAIN = 0;
const REFUSED = 1;
const ESCAPE = 2;
const HIGH = 3;
const BYTE_CLASS = new Uint8Array(256);
for (let byte = 0; byte < 0x20; byte++) BYTE_CLASS[byte] = REFUSED;
BYTE_CLASS[0x22] = REFUSED;
BYTE_CLASS[0x5c] = ESCAPE;
for (let byte = 0x80; byte < 256; byte++) BYTE_CLASS[byte] = HIGH;

/** True for the characters that may follow a backslash, besides `u`. */
const SIMPLE_ESCAPE = new Uint8Array(128);
for (const char of '"\\/bfnrt') SIMPLE_ESCAPE[char.charCodeAt(0)] = 1;

/** True for the bytes of hexadecimal digits. */
const HEX = new Uint8Array(256);
for (const char of '0123456789abcdefABCDEF') HEX[char.charCodeAt(0)] = 1;

/** The kind (see `stringEventAt`) of the event `scanStringEvent` last recognised. */
let scanned = -1;

/** The kind of the event the last `scanStringEvent` that found one recognised (see `stringEventAt`). */
export function scannedKind(): number {
  return scanned;
}

/**
 * Recognises an event starting at `bytes[start]` and reads no further than where it ends
 * (nor than `limit`): the index just past its closing brace when it is exactly
 * `{"type":"<string-content type>","content":"<JSON string>"}`, its kind then given by
 * `scannedKind()`; `-1` when it is not; `0` when the bytes reach `limit` before saying.
 * Any control character (a CR or LF included) makes it unrecognised.
 */
export function scanStringEvent(bytes: Uint8Array, start: number, limit: number): number {
  let at: number;
  let kind = -1;
  if (limit - start >= LONGEST_PREFIX) {
    // The common case, room for any prefix: the fixed parts are compared with constants,
    // which costs a third of a loop over a table.
    // `{"type":"`
    if (bytes[start] !== 0x7b || bytes[start + 1] !== 0x22 || bytes[start + 2] !== 0x74 || bytes[start + 3] !== 0x79 || bytes[start + 4] !== 0x70 || bytes[start + 5] !== 0x65 || bytes[start + 6] !== 0x22 || bytes[start + 7] !== 0x3a || bytes[start + 8] !== 0x22) return -1;
    at = start + COMMON.length;
    for (const candidate of BY_FIRST_BYTE[bytes[at]!]!) {
      const name = TYPE_NAMES[candidate]!;
      let same = true;
      for (let offset = 1; offset < name.length; offset++) {
        if (bytes[at + offset] !== name[offset]) {
          same = false;
          break;
        }
      }
      const rest = at + name.length;
      // `","content":"`
      if (same && bytes[rest] === 0x22 && bytes[rest + 1] === 0x2c && bytes[rest + 2] === 0x22 && bytes[rest + 3] === 0x63 && bytes[rest + 4] === 0x6f && bytes[rest + 5] === 0x6e && bytes[rest + 6] === 0x74 && bytes[rest + 7] === 0x65 && bytes[rest + 8] === 0x6e && bytes[rest + 9] === 0x74 && bytes[rest + 10] === 0x22 && bytes[rest + 11] === 0x3a && bytes[rest + 12] === 0x22) {
        kind = candidate;
        at = rest + 13;
        break;
      }
    }
  } else {
    // Near `limit`: byte by byte, "not yet" where the bytes end within a prefix.
    if (limit - start <= COMMON.length) return startsPrefix(bytes, start, limit, COMMON) ? 0 : -1;
    for (let offset = 0; offset < COMMON.length; offset++) if (bytes[start + offset] !== COMMON[offset]) return -1;
    at = start + COMMON.length;
    for (const candidate of BY_FIRST_BYTE[bytes[at]!]!) {
      const tail = TYPE_TAILS[candidate]!;
      if (limit - at < tail.length) {
        if (startsPrefix(bytes, at, limit, tail)) return 0;
        continue;
      }
      if (startsPrefix(bytes, at, at + tail.length, tail)) {
        kind = candidate;
        at += tail.length;
        break;
      }
    }
  }
  if (kind < 0) return -1;
  const contentStart = at;
  let escaped = false;
  let high = false;
  // The content ends at the first quote not escaped, which the closing brace must follow.
  for (;;) {
    if (at >= limit) return 0;
    const byteClass = BYTE_CLASS[bytes[at]!]!;
    if (byteClass === PLAIN) {
      at++;
      continue;
    }
    if (byteClass === REFUSED) break;
    if (byteClass === HIGH) {
      high = true;
      at++;
      continue;
    }
    escaped = true;
    if (at + 1 >= limit) return 0;
    const next = bytes[at + 1]!;
    if (next < 128 && SIMPLE_ESCAPE[next] === 1) {
      at += 2;
      continue;
    }
    if (next !== 0x75) return -1;
    if (at + 5 >= limit) return 0;
    if (HEX[bytes[at + 2]!] === 1 && HEX[bytes[at + 3]!] === 1 && HEX[bytes[at + 4]!] === 1 && HEX[bytes[at + 5]!] === 1) {
      at += 6;
      continue;
    }
    return -1;
  }
  if (bytes[at] !== QUOTE) return -1;
  if (at + 1 >= limit) return 0;
  if (bytes[at + 1] !== CLOSE) return -1;
  // What StringDecoder would turn into U+FFFD is left to the general path, which does so.
  if (high && !isUtf8(bytes.subarray(contentStart, at))) return -1;
  scanned = escaped ? kind | ESCAPED : kind;
  return at + 2;
}

/** True when `bytes[start..limit)` is the start of `prefix` (`limit - start` at most its length). */
function startsPrefix(bytes: Uint8Array, start: number, limit: number, prefix: Uint8Array): boolean {
  for (let at = start; at < limit; at++) if (bytes[at] !== prefix[at - start]) return false;
  return true;
}

/**
 * Recognises the event in `bytes[start..end)`: `-1` when it is not exactly
 * `{"type":"<string-content type>","content":"<JSON string>"}`, else the type's index in
 * `STRING_EVENT_TYPES`, with `ESCAPED` set when the content holds a backslash escape.
 * Any control character (a CR or LF included) makes it unrecognised.
 */
export function stringEventAt(bytes: Uint8Array, start: number, end: number): number {
  const found = scanStringEvent(bytes, start, end);
  return found > 0 && found === end ? scanned : -1;
}

/** The type of a recognised event, from `stringEventAt`'s answer. */
export function typeOfKind(kind: number): EventType {
  return STRING_EVENT_TYPES[kind & TYPE_MASK]!;
}

/** The type bits of each string-content type (see `typeBit`), by its index. */
const KIND_BITS = Int32Array.from(STRING_EVENT_TYPES, (type) => typeBit(type));

/** The bit (`typeBit`) of the type of a recognised event, from `stringEventAt`'s answer. */
export function kindBit(kind: number): number {
  return KIND_BITS[kind & TYPE_MASK]!;
}

/** Where the content of a recognised event of `kind` starts, after its opening quote. */
export function contentStart(start: number, kind: number): number {
  return start + COMMON.length + TYPE_TAILS[kind & TYPE_MASK]!.length;
}

/** The events of `group`, parsed (for consumers that take events one by one). */
export function eventsOfBytes(group: RelayedBytes): { event: EventInput; raw: string; parsed: unknown }[] {
  const events: { event: EventInput; raw: string; parsed: unknown }[] = [];
  const { source, spans } = group;
  for (let index = 0; index < spans.length; index += 3) {
    const raw = source.toString('utf8', spans[index]!, spans[index + 1]!);
    const parsed = JSON.parse(raw) as EventInput;
    events.push({ event: parsed, raw, parsed });
  }
  return events;
}

/** Below this many bytes a content is copied by a loop (see `textOfBytes`). */
const SHORT_CONTENT = 32;

/**
 * The text of the `text` events of `group`, joined: their contents are copied as the
 * JSON string bodies they arrived as and decoded once (a concatenation of well-formed
 * JSON string bodies is one).
 */
export function textOfBytes(group: RelayedBytes): string {
  const { source, spans } = group;
  let size = 0;
  let escaped = false;
  for (let index = 0; index < spans.length; index += 3) {
    const kind = spans[index + 2]!;
    if (typeOfKind(kind) !== 'text') continue;
    if ((kind & ESCAPED) !== 0) escaped = true;
    size += spans[index + 1]! - 2 - contentStart(spans[index]!, kind);
  }
  if (size === 0) return '';
  const body = Buffer.allocUnsafe(size);
  let at = 0;
  for (let index = 0; index < spans.length; index += 3) {
    const kind = spans[index + 2]!;
    if (typeOfKind(kind) !== 'text') continue;
    const from = contentStart(spans[index]!, kind);
    const to = spans[index + 1]! - 2;
    if (to - from < SHORT_CONTENT) {
      // A streamed token is a few bytes: a loop costs less than a view and a native call.
      for (let byte = from; byte < to; byte++) body[at++] = source[byte]!;
      continue;
    }
    // A plain view for the native copy (Buffer.copy would make one per call too, through more steps).
    body.set(new Uint8Array(source.buffer, source.byteOffset + from, to - from), at);
    at += to - from;
  }
  const text = body.toString('utf8');
  return escaped ? (JSON.parse(`"${text}"`) as string) : text;
}
