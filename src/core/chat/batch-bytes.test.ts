import { describe, expect, it } from 'vitest';
import { BatchBytes } from './batch-bytes.js';
import { encodeEvent, sseFrame } from './encoded.js';
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

  it('reserves room for a batch of relayed events beforehand, and writes them as the parsed path would', () => {
    const contents = ['a', 'naïve — 日本語 🎉', 'x'.repeat(47), `long ${'z'.repeat(5000)} \\"end\\"`, ''];
    const events = contents.map((content, index) => relayed(JSON.stringify({ type: index % 2 === 0 ? 'text' : 'thought', content })));
    const firstSeq = 99_998; // the numbers cross to six digits within the batch
    const size = BatchBytes.sizeFor(events);
    const bytes = new BatchBytes(size);
    events.forEach(({ raw, parsed, event }, index) => bytes.add(firstSeq + index, event, TS, raw, parsed));
    const frames = bytes.finish();
    const encoded = events.map(({ raw, parsed, event }, index) => ({ seq: firstSeq + index, type: event.type, json: encodeEvent(event, TS, raw, parsed) }));
    expect(frames.toString('utf8')).toBe(encoded.map(sseFrame).join(''));
    // The room reserved held every byte: the frames are still in the buffer first allocated
    // (of exactly that size, being too large for Node's shared pool).
    expect(size).toBeGreaterThan(Buffer.poolSize);
    expect(frames.buffer.byteLength).toBe(size);
  });
});
