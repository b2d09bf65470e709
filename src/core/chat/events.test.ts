import { describe, expect, it } from 'vitest';
import { parseEvent } from './events.js';

describe('parseEvent', () => {
  it('accepts every event type of the contract and fills in what an agent may leave out', () => {
    expect(parseEvent({ type: 'thought', content: 'hm' })).toEqual({ ok: true, event: { type: 'thought', content: 'hm' } });
    expect(parseEvent({ type: 'text', content: 'hi' })).toEqual({ ok: true, event: { type: 'text', content: 'hi' } });
    expect(parseEvent({ type: 'tool_call', content: { tool: 'search' } })).toEqual({ ok: true, event: { type: 'tool_call', content: { tool: 'search', args: null } } });
    expect(parseEvent({ type: 'tool_result', content: { tool: 'search', result: { n: 1 } } })).toEqual({
      ok: true,
      event: { type: 'tool_result', content: { tool: 'search', result: { n: 1 } } },
    });
    expect(parseEvent({ type: 'decision', content: { title: 'Go' } })).toEqual({ ok: true, event: { type: 'decision', content: { title: 'Go', body: '' } } });
    expect(parseEvent({ type: 'milestone', content: { title: 'Half way' } })).toEqual({ ok: true, event: { type: 'milestone', content: { title: 'Half way' } } });
    expect(parseEvent({ type: 'skill_learned', content: { slug: 'a-b', name: 'A b', tags: ['x'] } })).toEqual({
      ok: true,
      event: { type: 'skill_learned', content: { slug: 'a-b', name: 'A b', tags: ['x'] } },
    });
    expect(parseEvent({ type: 'complete', content: { summary: 'done' } })).toEqual({ ok: true, event: { type: 'complete', content: { summary: 'done', artifacts: [] } } });
    expect(parseEvent({ type: 'error', content: { message: 'no' } })).toEqual({ ok: true, event: { type: 'error', content: { message: 'no' } } });
  });

  it('drops members the schema does not declare and leaves the timestamp to the engine', () => {
    const parsed = parseEvent({ type: 'milestone', content: { title: 'T', colour: 'red' }, timestamp: '2020-01-01T00:00:00.000Z', extra: 1 });
    expect(parsed).toEqual({ ok: true, event: { type: 'milestone', content: { title: 'T' } } });
    // A text event is the parsed object itself only when it has nothing else.
    const sent = { type: 'text', content: 'hi', timestamp: '2020-01-01T00:00:00.000Z' };
    const text = parseEvent(sent);
    expect(text).toEqual({ ok: true, event: { type: 'text', content: 'hi' } });
    expect(text.ok && text.event).not.toBe(sent);
    expect(sent.timestamp).toBe('2020-01-01T00:00:00.000Z');
    const exact = { type: 'text', content: 'hi' };
    expect(parseEvent(exact)).toEqual({ ok: true, event: exact });
  });

  it('keeps tool arguments and results whatever their shape', () => {
    const args = { query: 'x', nested: { deep: [1, { two: 2 }] } };
    expect(parseEvent({ type: 'tool_call', content: { tool: 't', args } })).toEqual({ ok: true, event: { type: 'tool_call', content: { tool: 't', args } } });
  });

  it('names what is wrong, in the words of the contract', () => {
    const message = (value: unknown) => {
      const parsed = parseEvent(value);
      return parsed.ok ? 'accepted' : parsed.message;
    };
    expect(message({ type: 'tool_call', content: { tool: 5 } })).toBe('tool_call event: content.tool must be a string');
    expect(message({ type: 'tool_call', content: {} })).toBe('tool_call event: content.tool must be a string');
    expect(message({ type: 'milestone', content: {} })).toBe('milestone event: content.title must be a string');
    expect(message({ type: 'thought', content: { text: 'x' } })).toBe('thought event: content must be a string');
    expect(message({ type: 'decision', content: 'x' })).toBe('decision event: content must be an object');
    expect(message({ type: 'complete', content: { summary: 's', artifacts: ['a', 3] } })).toBe('complete event: content.artifacts[1] must be a string');
    expect(message({ type: 'skill_learned', content: { slug: 's', name: 'n', tags: 'x' } })).toBe('skill_learned event: content.tags must be an array');
    expect(message({ type: 'error', content: { message: null } })).toBe('error event: content.message must be a string');
    expect(message({ type: 'bogus', content: 'x' })).toBe('unknown event type "bogus"');
    expect(message({ content: 'x' })).toBe('unknown event type undefined');
    expect(message([1])).toBe('an event must be a JSON object');
    expect(message('text')).toBe('an event must be a JSON object');
  });

  it('counts further problems after the first', () => {
    const parsed = parseEvent({ type: 'skill_learned', content: {} });
    expect(parsed).toEqual({ ok: false, message: 'skill_learned event: content.slug must be a string (and 1 more)' });
  });
});
