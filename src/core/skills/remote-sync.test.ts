import { describe, expect, it, vi } from 'vitest';
import { syncSkills, type SkillWakeups } from './remote-sync.js';

/** Wake-ups a test sends by hand. */
function wakeups(): SkillWakeups & { announce(commit: string): void; reconnect(): void; handlers(): number } {
  const onSkills = new Set<(commit: string) => void>();
  const onResync = new Set<() => void>();
  return {
    on(_topic, handler) {
      onSkills.add(handler);
      return () => onSkills.delete(handler);
    },
    onResync(handler) {
      onResync.add(handler);
      return () => onResync.delete(handler);
    },
    announce: (commit) => onSkills.forEach((handler) => handler(commit)),
    reconnect: () => onResync.forEach((handler) => handler()),
    handlers: () => onSkills.size + onResync.size,
  };
}

/** A store whose pulls the test ends one by one. */
function gatedStore() {
  const pending: (() => void)[] = [];
  let started = 0;
  let waiter: (() => void) | undefined;
  return {
    pull: () =>
      new Promise<number>((resolve) => {
        started++;
        pending.push(() => resolve(1));
        waiter?.();
      }),
    started: () => started,
    finish: () => pending.shift()?.(),
    nextStart: (count: number) =>
      new Promise<void>((resolve) => {
        if (started >= count) resolve();
        else waiter = () => started >= count && resolve();
      }),
  };
}

describe('syncSkills', () => {
  it('pulls on an announced commit and after a reconnection, folding requests that come during a pull into one more', async () => {
    const listener = wakeups();
    const store = gatedStore();
    const pulled: number[] = [];
    let onPulled: () => void = () => undefined;
    const stop = syncSkills(store, { fetchMs: 3_600_000, listener, log: () => undefined, onPulled: (n) => (pulled.push(n), onPulled()) });

    listener.announce('c1');
    await store.nextStart(1);
    listener.announce('c2');
    listener.reconnect();
    listener.announce('c3');
    expect(store.started()).toBe(1);
    const firstDone = new Promise<void>((resolve) => (onPulled = resolve));
    store.finish();
    await firstDone;
    await store.nextStart(2);
    store.finish();
    expect(store.started()).toBe(2);

    stop();
    expect(listener.handlers()).toBe(0);
    listener.announce('c4');
    expect(store.started()).toBe(2);
  });

  it('a failed pull is logged and the next announcement pulls again', async () => {
    const listener = wakeups();
    const logged: string[] = [];
    let calls = 0;
    let resolveSecond!: () => void;
    const second = new Promise<void>((resolve) => (resolveSecond = resolve));
    const store = {
      pull: async () => {
        calls++;
        if (calls === 1) throw new Error('remote unreachable');
        resolveSecond();
        return 0;
      },
    };
    let failed!: () => void;
    const failure = new Promise<void>((resolve) => (failed = resolve));
    const stop = syncSkills(store, {
      fetchMs: 3_600_000,
      listener,
      log: (level, message) => {
        logged.push(`${level}: ${message}`);
        failed();
      },
    });
    listener.announce('c1');
    await failure;
    expect(logged).toEqual(['warn: pulling the skills remote failed (tried again on the next announcement or fetch)']);
    listener.announce('c2');
    await second;
    expect(calls).toBe(2);
    stop();
  });

  it('fetches every fetchMs without any announcement (pushes made outside org), until stopped', () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const stop = syncSkills({ pull: async () => (calls++, 0) }, { fetchMs: 10_000, log: () => undefined });
      vi.advanceTimersByTime(9_999);
      expect(calls).toBe(0);
      vi.advanceTimersByTime(1);
      expect(calls).toBe(1);
      stop();
      vi.advanceTimersByTime(60_000);
      expect(calls).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
