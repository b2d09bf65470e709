import { describe, expect, it } from 'vitest';
import { encodeEvent, sseFrame, type EncodedEvent } from './encoded.js';
import { FrameBatch, decodeFrames } from './frames.js';

const TS = '2030-01-02T03:04:05.678Z';
const text = (seq: number, content: string): EncodedEvent => ({ seq, type: 'text', json: encodeEvent({ type: 'text', content }, TS) });
const complete = (seq: number): EncodedEvent => ({ seq, type: 'complete', json: encodeEvent({ type: 'complete', content: { summary: 'done', artifacts: [] } }, TS) });

describe('FrameBatch', () => {
  const events = [text(4, 'plain'), text(5, 'naïve — 日本語 🎉 "quoted"\\'), { seq: 6, type: 'tool_call' as const, json: '{"content":{"tool":"t","args":{}},"type":"tool_call","timestamp":"x"}' }, complete(7)];
  const batch = FrameBatch.of(events);

  it('holds the SSE frames of its events, byte for byte as sseFrame writes them', () => {
    expect(batch.frames.toString('utf8')).toBe(events.map(sseFrame).join(''));
    expect([batch.first, batch.last, batch.length, batch.lastType, batch.terminal]).toEqual([4, 7, 4, 'complete', true]);
  });

  it('decodes its events back, from any sequence number, multi-byte text and any member order included', () => {
    expect(batch.events()).toEqual(events);
    expect(batch.events(5)).toEqual(events.slice(2));
    expect(batch.events(7)).toEqual([]);
    expect(batch.framesAfter(6).toString('utf8')).toBe(sseFrame(events[3]!));
    expect(batch.lastEvent()).toEqual(events[3]);
    expect(FrameBatch.of([text(1, 'only')]).lastEvent()).toEqual(text(1, 'only'));
  });

  it('knows which event types it holds', () => {
    expect(batch.holds('tool_call')).toBe(true);
    expect(batch.holds('skill_learned', 'decision')).toBe(false);
    expect(FrameBatch.of([text(1, 'a')]).terminal).toBe(false);
  });

  it('decodeFrames reads what sseFrame wrote', () => {
    expect(decodeFrames(events.map(sseFrame).join(''))).toEqual(events);
    expect(() => FrameBatch.of([])).toThrow();
  });
});
