import { describe, expect, it } from 'vitest';
import { ESCAPED, eventsOfBytes, scanStringEvent, scannedKind, stringEventAt, textOfBytes, typeOfKind } from './event-bytes.js';
import { parseEvent } from './events.js';

/** `stringEventAt` on `text` (as UTF-8), placed between other bytes as in a received chunk. */
function recognise(text: string | Buffer): number {
  const json = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const bytes = Buffer.concat([Buffer.from('data: '), json, Buffer.from('\n\nid: 9\n')]);
  return stringEventAt(bytes, 6, 6 + json.length);
}

describe('stringEventAt', () => {
  const accepted = [
    '{"type":"text","content":"hello"}',
    '{"type":"text","content":""}',
    '{"type":"thought","content":"thinking about it"}',
    '{"type":"text","content":"naïve — 日本語 🎉"}',
    '{"type":"text","content":"quote \\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t end"}',
    '{"type":"text","content":"\\u00e9\\u2713\\ud83c\\udf89"}',
  ];

  it('recognises exactly the plain string events parseEvent hands over unchanged', () => {
    for (const text of accepted) {
      const kind = recognise(text);
      expect(kind, text).toBeGreaterThanOrEqual(0);
      const parsed = JSON.parse(text) as unknown;
      const checked = parseEvent(parsed);
      expect(checked.ok && checked.event).toBe(parsed);
      expect(typeOfKind(kind)).toBe((parsed as { type: string }).type);
      expect((kind & ESCAPED) !== 0).toBe(text.includes('\\'));
    }
  });

  it('leaves everything else to JSON.parse and parseEvent', () => {
    const refused: (string | Buffer)[] = [
      // Other types, or content that is not a string.
      '{"type":"milestone","content":"x"}',
      '{"type":"texts","content":"x"}',
      '{"type":"text","content":5}',
      '{"type":"text","content":null}',
      '{"type":"text","content":{"a":1}}',
      // Not the exact form: order, whitespace, members, nesting.
      '{"content":"x","type":"text"}',
      '{ "type":"text","content":"x"}',
      '{"type":"text","content":"x" }',
      '{"type":"text","content":"x"} ',
      '{"type":"text","content":"x","extra":1}',
      '{"type":"text","content":"x","content":"y"}',
      '{"type":"text","content":"x"}}',
      '{"type":"text","content":"x"',
      '{"type":"text","content":"x',
      '{"type":"text","content":"a"b"}',
      '{"type":"text","content":"',
      '{"type":"text","content":',
      // Bad strings: control characters, bad escapes, cut escapes, invalid UTF-8.
      '{"type":"text","content":"tab\there"}',
      '{"type":"text","content":"cr\rhere"}',
      '{"type":"text","content":"bad \\x escape"}',
      '{"type":"text","content":"bad \\u12g4"}',
      '{"type":"text","content":"cut \\u12"}',
      '{"type":"text","content":"ends in \\"}',
      Buffer.concat([Buffer.from('{"type":"text","content":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
      Buffer.concat([Buffer.from('{"type":"text","content":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    ];
    for (const text of refused) expect(recognise(text), String(text)).toBe(-1);
  });

  it('scanStringEvent finds where a recognised event ends by itself, and says 0 rather than no while the bytes stop short of it', () => {
    for (const text of accepted) {
      const json = Buffer.from(text, 'utf8');
      const bytes = Buffer.concat([json, Buffer.from('\n\n{"type":"text","content":"next"}')]);
      expect(scanStringEvent(bytes, 0, bytes.length), text).toBe(json.length);
      expect(scannedKind()).toBe(recognise(text));
      // Cut anywhere before its end (as a chunk may end), the answer is "not yet".
      for (let limit = 0; limit < json.length; limit++) expect(scanStringEvent(bytes, 0, limit), `${text} cut at ${limit}`).toBe(0);
    }
    // What it refuses, it refuses as soon as it can, whatever follows.
    for (const text of ['{"type":"milestone","content":"x"}', '{"type":"text","content":"a"b"}', '{"type":"text","content":"tab\there"}', '{"type":"text","content":"x" }']) {
      const bytes = Buffer.from(`${text}\n\n`);
      expect(scanStringEvent(bytes, 0, bytes.length), text).toBe(-1);
    }
  });

  it('gives the events of a group back, and the text of its text events decoded once', () => {
    const source = Buffer.from(accepted.join('\n'), 'utf8');
    const spans: number[] = [];
    let start = 0;
    for (const text of accepted) {
      const end = start + Buffer.byteLength(text);
      spans.push(start, end, stringEventAt(source, start, end));
      start = end + 1;
    }
    const group = { source, spans };
    expect(eventsOfBytes(group).map((item) => item.event)).toEqual(accepted.map((text) => JSON.parse(text) as unknown));
    expect(eventsOfBytes(group)[0]!.raw).toBe(accepted[0]);
    const text = accepted.map((item) => JSON.parse(item) as { type: string; content: string }).filter((event) => event.type === 'text');
    expect(textOfBytes(group)).toBe(text.map((event) => event.content).join(''));
    expect(textOfBytes({ source, spans: spans.slice(6, 9) })).toBe('');
  });
});
