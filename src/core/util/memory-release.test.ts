import { afterEach, describe, expect, it, vi } from 'vitest';
import { fullCollection, MemoryRelease } from './memory-release.js';

describe('memory is given back after a burst of runs', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once after enough runs ended and none ran for the quiet time, never while one runs', () => {
    vi.useFakeTimers();
    let open = 3;
    const collect = vi.fn();
    const release = new MemoryRelease(() => open > 0, { afterRuns: 3, quietMs: 1000, collect });
    // Runs end while others still run: nothing is scheduled.
    open--;
    release.runEnded();
    open--;
    release.runEnded();
    vi.advanceTimersByTime(5000);
    expect(collect).not.toHaveBeenCalled();
    // The last one ends: one collection once the server has been quiet for a second.
    open--;
    release.runEnded();
    vi.advanceTimersByTime(999);
    expect(collect).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(collect).toHaveBeenCalledTimes(2);
    expect(release.collections).toBe(1);
    // Nothing more until as many runs have ended again.
    release.runEnded();
    vi.advanceTimersByTime(5000);
    expect(collect).toHaveBeenCalledTimes(2);
  });

  it('does not collect when a run started during the quiet time', () => {
    vi.useFakeTimers();
    let open = 0;
    const collect = vi.fn();
    const release = new MemoryRelease(() => open > 0, { afterRuns: 1, quietMs: 1000, collect });
    release.runEnded();
    open = 1;
    vi.advanceTimersByTime(1000);
    expect(collect).not.toHaveBeenCalled();
    open = 0;
    release.runEnded();
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(2);
    release.close();
  });

  it('waits for the streams still sending when the last run ended, looking again every quiet time', () => {
    vi.useFakeTimers();
    let streams = 1;
    const collect = vi.fn();
    const release = new MemoryRelease(() => streams > 0, { afterRuns: 1, quietMs: 1000, collect });
    release.runEnded();
    vi.advanceTimersByTime(3000);
    expect(collect).not.toHaveBeenCalled();
    streams = 0;
    vi.advanceTimersByTime(1000);
    expect(collect).toHaveBeenCalledTimes(2);
    // Collected once: no timer is left behind.
    vi.advanceTimersByTime(10_000);
    expect(collect).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("V8's full collection can be had at run time", () => {
    const gc = fullCollection();
    expect(typeof gc).toBe('function');
    const before = process.memoryUsage().heapUsed;
    // Garbage no one holds, then collected: the heap is no larger than before it was made.
    const made = (): number => Array.from({ length: 200_000 }, (_, i) => ({ i })).length;
    expect(made()).toBe(200_000);
    gc!();
    expect(process.memoryUsage().heapUsed).toBeLessThan(before + 4 * 1024 * 1024);
  });
});
