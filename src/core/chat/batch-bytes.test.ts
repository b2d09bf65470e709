import { describe, expect, it } from 'vitest';
import { BatchBytes } from './batch-bytes.js';
import { encodeEvent, sseFrame } from './encoded.js';
import { stringEventAt } from './event-bytes.js';
import { parseEvent } from './events.js';
import type { EventInput } from './types.js';

const TS = '2030-01-02T03:04:05.678Z';

/** Relayed events as a container might send them: raw text, its parse and the validated event. */
function relayed(raw: string): { raw: string; parsed: unknown; event: EventInput } {
  const parsed: unknown = JSON.parse(raw);
  const result = parseEvent(parsed);
  if (!result.ok) throw new Error(result.message);
  return { raw, parsed, event: result.event };
}

describe('BatchBytes', () => {
  const cases = [
    relayed('{"type":"text","content":"plain"}'),
    relayed(JSON.stringify({ type: 'text', content: 'naïve — 日本語 🎉 "q" \\' })),
    relayed('{"content":"content first","type":"text"}'),
    relayed('{ "type" : "thought", "content" : "spaced" }  \t'),
    relayed('{"type":"text","content":"extra","secret":"dropped"}'),
    relayed('{"type":"decision","content":{"title":"t"}}'),
  ];

  it('writes each event as encodeEvent and sseFrame would, the container text reused where it can be', () => {
    const bytes = new BatchBytes(2);
    cases.forEach(({ raw, parsed, event }, index) => bytes.add(index + 1, event, TS, raw, parsed));
    const encoded = cases.map(({ raw, parsed, event }, index) => ({ seq: index + 1, type: event.type, json: encodeEvent(event, TS, raw, parsed) }));
    expect(bytes.finish().toString('utf8')).toBe(encoded.map(sseFrame).join(''));
    // Every event parses back with its timestamp, validation's changes included.
    const parsedBack = encoded.map((event) => JSON.parse(event.json) as Record<string, unknown>);
    expect(parsedBack.map((event) => event.timestamp)).toEqual(cases.map(() => TS));
    expect(parsedBack[4]).toEqual({ type: 'text', content: 'extra', timestamp: TS });
    expect(parsedBack[5]).toEqual({ type: 'decision', content: { title: 't', body: '' }, timestamp: TS });
    expect(encoded[3]!.json).toBe(`{ "type" : "thought", "content" : "spaced" ,"timestamp":"${TS}"}`);
  });

  it('returns the JSON text of an event when asked (the terminal event of an end record)', () => {
    const bytes = new BatchBytes();
    const json = bytes.add(12345678901, { type: 'complete', content: { summary: 'done', artifacts: [] } }, TS, undefined, undefined, true);
    expect(JSON.parse(json!)).toEqual({ type: 'complete', content: { summary: 'done', artifacts: [] }, timestamp: TS });
    expect(bytes.finish().toString('utf8')).toBe(`id: 12345678901\ndata: ${json}\n\n`);
  });

  it('writes events recognised in their bytes, short and long, as the parsed path would, into buffers sized exactly beforehand', () => {
    const contents = ['a', 'naïve — 日本語 🎉', 'x'.repeat(47), 'y'.repeat(48), `long ${'z'.repeat(500)} \\"end\\"`, ''];
    const texts = contents.map((content, index) => JSON.stringify({ type: index % 2 === 0 ? 'text' : 'thought', content }));
    // As they arrive in a container's stream: between framing of its own.
    const source = Buffer.from(texts.map((text, index) => `id: ${index}\ndata: ${text}\n\n`).join(''));
    const spans: [number, number][] = [];
    let at = 0;
    for (const text of texts) {
      const start = source.indexOf('data: ', at) + 6;
      const end = start + Buffer.byteLength(text);
      expect(stringEventAt(source, start, end)).toBeGreaterThanOrEqual(0);
      spans.push([start, end]);
      at = end;
    }
    const firstSeq = 99_998; // the numbers cross to six digits within the batch
    const size = BatchBytes.sizeFor(spans.length, spans.reduce((sum, [start, end]) => sum + end - start, 0), 0, 0, firstSeq + spans.length - 1, TS);
    const bytes = new BatchBytes(size);
    spans.forEach(([start, end], index) => bytes.addBytes(firstSeq + index, source, start, end, TS));
    const frames = bytes.finish();
    const encoded = texts.map((text, index) => {
      const parsed: unknown = JSON.parse(text);
      const result = parseEvent(parsed);
      if (!result.ok) throw new Error(result.message);
      return { seq: firstSeq + index, type: result.event.type, json: encodeEvent(result.event, TS, text, parsed) };
    });
    expect(frames.toString('utf8')).toBe(encoded.map(sseFrame).join(''));
    // The room reserved holds every byte (so the buffer never grows), and only the digits
    // the first two numbers lack (room was made for six) are left over.
    expect(size - frames.length).toBe(2);
  });
});
