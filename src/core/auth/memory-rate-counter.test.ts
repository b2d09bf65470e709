import { describe, expect, it } from 'vitest';
import { MemoryRateCounter } from './memory-rate-counter.js';

describe('MemoryRateCounter', () => {
  it('counts each key in fixed windows and answers the time left in the window', () => {
    let now = 1_000;
    const counter = new MemoryRateCounter(100, () => now);
    expect(counter.count('a', 60_000)).toEqual({ count: 1, ttlMs: 60_000 });
    now += 15_000;
    expect(counter.count('a', 60_000)).toEqual({ count: 2, ttlMs: 45_000 });
    expect(counter.count('b', 60_000)).toEqual({ count: 1, ttlMs: 60_000 });
    // The window ends: the count starts again.
    now += 45_000;
    expect(counter.count('a', 60_000)).toEqual({ count: 1, ttlMs: 60_000 });
    expect(counter.count('b', 60_000)).toEqual({ count: 2, ttlMs: 15_000 });
  });

  it('keeps at most its bound of keys, dropping the window that began first', () => {
    let now = 0;
    const counter = new MemoryRateCounter(2, () => now);
    counter.count('a', 60_000);
    now = 10;
    counter.count('b', 60_000);
    counter.count('a', 60_000);
    counter.count('b', 60_000);
    now = 20;
    counter.count('c', 60_000);
    // a's window began first: it starts over; b kept its count.
    expect(counter.count('b', 60_000).count).toBe(3);
    expect(counter.count('a', 60_000)).toEqual({ count: 1, ttlMs: 60_000 });
  });

  it('answers the same count through the shared counter interface', async () => {
    const counter = new MemoryRateCounter(10, () => 0);
    await counter.hit('k', 1_000);
    expect(await counter.hit('k', 1_000)).toEqual({ count: 2, ttlMs: 1_000 });
  });
});
