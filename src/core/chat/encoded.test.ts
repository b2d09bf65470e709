import { describe, expect, it } from 'vitest';
import { decodeEvent, encodeEvent, sseFrame } from './encoded.js';
import { parseEvent } from './events.js';
import type { EventInput } from './types.js';

const TS = '2030-01-02T03:04:05.678Z';

describe('encodeEvent', () => {
  it('serialises an event with its timestamp', () => {
    const json = encodeEvent({ type: 'text', content: 'hi "there"' }, TS);
    expect(JSON.parse(json)).toEqual({ type: 'text', content: 'hi "there"', timestamp: TS });
  });

  it('reuses the relayed JSON text when it holds exactly the validated members', () => {
    const raw = '{"content":{"tool":"search","args":{"q":"x"}},"type":"tool_call"}';
    const event: EventInput = { type: 'tool_call', content: { tool: 'search', args: { q: 'x' } } };
    const json = encodeEvent(event, TS, raw, JSON.parse(raw));
    expect(json.startsWith('{"content":{"tool":"search"')).toBe(true);
    expect(JSON.parse(json)).toEqual({ ...event, timestamp: TS });
  });

  it('splices the timestamp into a relayed text event that parseEvent handed over as it was parsed', () => {
    const raw = '{"type":"text","content":"caf\u00e9 \\"quoted\\""}';
    const value: unknown = JSON.parse(raw);
    const parsed = parseEvent(value);
    expect(parsed.ok && parsed.event).toBe(value);
    const json = encodeEvent(parsed.ok ? parsed.event : { type: 'text', content: '' }, TS, raw, value);
    expect(json).toBe(`${raw.slice(0, -1)},"timestamp":"${TS}"}`);
    expect(JSON.parse(json)).toEqual({ type: 'text', content: 'café "quoted"', timestamp: TS });
  });

  it('splices the timestamp before the closing brace of relayed text with its own spacing, whitespace after the brace included', () => {
    const raw = '{ "type" : "thought", "content" : "spaced" }  \t';
    const value: unknown = JSON.parse(raw);
    const parsed = parseEvent(value);
    const json = encodeEvent(parsed.ok ? parsed.event : { type: 'thought', content: '' }, TS, raw, value);
    expect(json).toBe(`{ "type" : "thought", "content" : "spaced" ,"timestamp":"${TS}"}`);
    expect(JSON.parse(json)).toEqual({ type: 'thought', content: 'spaced', timestamp: TS });
  });

  it('serialises again when validation defaulted or dropped members, or the text has line breaks', () => {
    const defaulted = '{"type":"decision","content":{"title":"t"}}';
    expect(JSON.parse(encodeEvent({ type: 'decision', content: { title: 't', body: '' } }, TS, defaulted, JSON.parse(defaulted)))).toEqual({
      type: 'decision',
      content: { title: 't', body: '' },
      timestamp: TS,
    });
    const extra = '{"type":"text","content":"a","secret":"x"}';
    expect(encodeEvent({ type: 'text', content: 'a' }, TS, extra, JSON.parse(extra))).not.toContain('secret');
    const pretty = '{\n "type": "text",\n "content": "a"\n}';
    const json = encodeEvent({ type: 'text', content: 'a' }, TS, pretty, JSON.parse(pretty));
    expect(json).not.toMatch(/\n/);
    expect(JSON.parse(json)).toEqual({ type: 'text', content: 'a', timestamp: TS });
  });

  it('frames and decodes what it encoded', () => {
    const encoded = { seq: 7, type: 'text' as const, json: encodeEvent({ type: 'text', content: 'x' }, TS) };
    expect(sseFrame(encoded)).toBe(`id: 7\ndata: ${encoded.json}\n\n`);
    expect(decodeEvent(encoded)).toEqual({ type: 'text', content: 'x', timestamp: TS });
  });
});
