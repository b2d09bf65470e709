/**
 * The shared rate counter on a real PostgreSQL: hits through two pools (two instances)
 * add up per key, keys count apart, and a window that has ended starts again at 1.
 */
import { describe, expect, it } from 'vitest';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import { createPgRateCounter } from './rate-counts.js';

const pg = usePostgres();
/** An hour: no run of these tests comes near a window's end, so no count depends on how long the test took. */
const WINDOW = 3_600_000;

describe('PostgreSQL rate counter', () => {
  it('counts the hits of one key across instances, and other keys apart', async () => {
    const a = createPgRateCounter(pg.open());
    const b = createPgRateCounter(pg.open());
    const counts: number[] = [];
    for (let i = 0; i < 6; i++) counts.push((await (i % 2 === 0 ? a : b).hit('t:one', WINDOW)).count);
    expect(counts).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await b.hit('t:two', WINDOW)).count).toBe(1);
    const concurrent = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).hit('t:burst', WINDOW)));
    expect(concurrent.map((count) => count.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const last = await a.hit('t:one', WINDOW);
    expect(last.count).toBe(7);
    expect(last.ttlMs).toBeGreaterThan(0);
    expect(last.ttlMs).toBeLessThanOrEqual(WINDOW);
  });

  it('starts a key again at 1 once its window has ended', async () => {
    const db = pg.open();
    const counter = createPgRateCounter(db);
    await counter.hit('t:old', WINDOW);
    await counter.hit('t:old', WINDOW);
    // The row as an instance left it two windows ago.
    await db.query('UPDATE org_rate_counts SET window_start = window_start - $1 WHERE key = $2', [2 * WINDOW, 't:old']);
    expect((await counter.hit('t:old', WINDOW)).count).toBe(1);
    expect((await counter.hit('t:old', WINDOW)).count).toBe(2);
  });
});
