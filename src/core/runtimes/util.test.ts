import { describe, expect, it } from 'vitest';
import type { EventInput } from '../chat/types.js';
import { PendingEmits, displayUrl, excerpt, formatDuration, sleep } from './util.js';

describe('PendingEmits', () => {
  it('calls emit at once, in order, and flush waits for all of them', async () => {
    const calls: string[] = [];
    const resolvers: (() => void)[] = [];
    const pending = new PendingEmits((event: EventInput) => {
      calls.push(event.type === 'text' ? event.content : event.type);
      return new Promise<void>((resolve) => resolvers.push(resolve));
    });
    pending.push({ type: 'text', content: 'a' });
    pending.push({ type: 'text', content: 'b' });
    expect(calls).toEqual(['a', 'b']);
    expect(pending.bytes).toBe(2 * 64);
    let flushed = false;
    const flushing = pending.flush().then(() => (flushed = true));
    await Promise.resolve();
    expect(flushed).toBe(false);
    for (const resolve of resolvers) resolve();
    await flushing;
    expect(flushed).toBe(true);
    expect(pending.bytes).toBe(0);
  });

  it('counts what waits in bytes of the events as received, and drains the oldest until at most the bytes asked for wait', async () => {
    const resolvers: (() => void)[] = [];
    const pending = new PendingEmits(() => new Promise<void>((resolve) => resolvers.push(resolve)));
    const big = JSON.stringify({ type: 'text', content: 'x'.repeat(10_000) });
    const small = '{"type":"text","content":"y"}';
    pending.push({ type: 'text', content: 'x'.repeat(10_000) }, big, JSON.parse(big));
    const relayed = () => ({ event: { type: 'text' as const, content: 'y' }, raw: small, parsed: JSON.parse(small) as unknown });
    pending.pushBatch([relayed(), relayed()]);
    expect(pending.bytes).toBe(big.length + 2 * small.length);
    let drained = false;
    const draining = pending.drainTo(100).then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
    // The big event's write settles: what is left is below the mark, the small ones not awaited.
    resolvers[0]!();
    await draining;
    expect(pending.bytes).toBe(2 * small.length);
    // Without emit.batch, the batch's events went one by one.
    expect(resolvers).toHaveLength(3);
    for (const resolve of resolvers.slice(1)) resolve();
    await pending.flush();
  });

  it('rethrows the first failure on flush, without unhandled rejections meanwhile', async () => {
    const pending = new PendingEmits(() => Promise.reject(new Error('disk full')));
    pending.push({ type: 'text', content: 'a' });
    // Let the rejection settle before anyone awaits it (an unhandled rejection would fail the run).
    await new Promise((resolve) => setImmediate(resolve));
    await expect(pending.flush()).rejects.toThrow('disk full');
  });
});

describe('helpers', () => {
  it('formats durations, excerpts and display URLs', () => {
    expect(formatDuration(300)).toBe('300 ms');
    expect(formatDuration(10_000)).toBe('10 s');
    expect(formatDuration(1500)).toBe('1.5 s');
    expect(excerpt('a\n  b   c', 120)).toBe('a b c');
    expect(excerpt('abcdef', 4)).toBe('abc…');
    expect(displayUrl(new URL('http://u:p@host:81/x/?q=1#f'))).toBe('http://host:81/x');
  });

  it('sleep resolves early on abort', async () => {
    const controller = new AbortController();
    // An hour: only the abort can end it within the test.
    const sleeping = sleep(3_600_000, controller.signal);
    controller.abort();
    await sleeping;
    // Already aborted: resolves without starting a timer.
    await sleep(3_600_000, controller.signal);
  });
});
