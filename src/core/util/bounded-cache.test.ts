import { describe, expect, it } from 'vitest';
import { BoundedCache, ENTRY_OVERHEAD_BYTES } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('drops the least recently used entry beyond the count bound', () => {
    const evicted: string[] = [];
    const cache = new BoundedCache<string, number>({ maxEntries: 2, maxBytes: 1_000_000 }, (key) => evicted.push(key));
    cache.set('a', 1, 10);
    cache.set('b', 2, 10);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3, 10);
    expect([...cache.keys()]).toEqual(['a', 'c']);
    expect(evicted).toEqual(['b']);
  });

  it('drops entries beyond the byte bound, whatever their count', () => {
    const cache = new BoundedCache<string, string>({ maxEntries: 1000, maxBytes: 3 * (100 + ENTRY_OVERHEAD_BYTES) });
    for (const key of ['a', 'b', 'c', 'd', 'e']) cache.set(key, key, 100);
    expect([...cache.keys()]).toEqual(['c', 'd', 'e']);
    expect(cache.size).toEqual({ entries: 3, bytes: 3 * (100 + ENTRY_OVERHEAD_BYTES) });
  });

  it('counts many tiny entries by their overhead, so they cannot grow without bound either', () => {
    const cache = new BoundedCache<number, null>({ maxEntries: 1_000_000, maxBytes: 10 * ENTRY_OVERHEAD_BYTES });
    for (let i = 0; i < 1000; i++) cache.set(i, null, 0);
    expect(cache.size.entries).toBe(10);
  });

  it('re-measures an entry that grows in place and trims the others', () => {
    const cache = new BoundedCache<string, string[]>({ maxEntries: 10, maxBytes: 1000 });
    cache.set('old', [], 100);
    cache.set('growing', [], 100);
    cache.resize('growing', 700);
    expect(cache.has('old')).toBe(false);
    expect(cache.size.bytes).toBe(800 + ENTRY_OVERHEAD_BYTES);
    cache.resize('growing', 10_000);
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('keeps nothing over the byte bound on its own, and replaces an entry under the same key', () => {
    const cache = new BoundedCache<string, string>({ maxEntries: 10, maxBytes: 500 });
    expect(cache.set('huge', 'x', 10_000)).toBe(false);
    expect(cache.has('huge')).toBe(false);
    cache.set('k', 'one', 100);
    cache.set('k', 'two', 200);
    expect(cache.peek('k')).toBe('two');
    expect(cache.size).toEqual({ entries: 1, bytes: 200 + ENTRY_OVERHEAD_BYTES });
    expect(cache.delete('k')).toBe(true);
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });
});
