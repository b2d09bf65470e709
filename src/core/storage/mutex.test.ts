import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './mutex.js';

/** A promise the test settles by hand: tasks wait on gates, never on timers. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('KeyedMutex', () => {
  it('runs tasks of one key one at a time, in the order queued', async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    let running = 0;
    let most = 0;
    const task = (name: string, held: Promise<void>) => async () => {
      running++;
      most = Math.max(most, running);
      events.push(`start ${name}`);
      await held;
      events.push(`end ${name}`);
      running--;
      return name;
    };
    const [a, b, c] = [gate(), gate(), gate()];
    const all = Promise.all([mutex.run('k', task('a', a.opened)), mutex.run('k', task('b', b.opened)), mutex.run('k', task('c', c.opened))]);
    // Released last to first: the queue order holds all the same.
    c.open();
    b.open();
    a.open();
    expect(await all).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
    expect(most).toBe(1);
  });

  it('runs tasks of different keys concurrently', async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    const x = gate();
    const first = mutex.run('x', async () => {
      events.push('x start');
      await x.opened;
      events.push('x end');
    });
    // y starts and ends while x is held.
    await mutex.run('y', () => {
      events.push('y start');
      events.push('y end');
    });
    expect(events).toEqual(['x start', 'y start', 'y end']);
    x.open();
    await first;
    expect(events).toEqual(['x start', 'y start', 'y end', 'x end']);
  });

  it('a failing task rejects its own caller only; the queue goes on', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const held = gate();
    const failing = mutex.run('k', async () => {
      await held.opened;
      order.push('fail');
      throw new Error('boom');
    });
    const syncThrow = mutex.run('k', () => {
      order.push('sync');
      throw new Error('sync boom');
    });
    const next = mutex.run('k', () => {
      order.push('next');
      return 42;
    });
    held.open();
    await expect(failing).rejects.toThrow('boom');
    await expect(syncThrow).rejects.toThrow('sync boom');
    await expect(next).resolves.toBe(42);
    expect(order).toEqual(['fail', 'sync', 'next']);
  });

  it('idle() waits for every queued task, including ones queued meanwhile', async () => {
    const mutex = new KeyedMutex();
    const done: string[] = [];
    const [a1, a2, b] = [gate(), gate(), gate()];
    let queuedB: Promise<void> | undefined;
    const first = mutex.run('a', async () => {
      await a1.opened;
      done.push('a1');
      queuedB = mutex.run('b', async () => {
        await b.opened;
        done.push('b');
      });
    });
    const second = mutex.run('a', async () => {
      await a2.opened;
      done.push('a2');
    });
    let idle = false;
    const idled = mutex.idle().then(() => {
      idle = true;
    });
    a1.open();
    a2.open();
    await Promise.all([first, second]);
    // A later task of another key, run to its end: idle() would have resolved meanwhile
    // if it did not wait for b, which is still held.
    await mutex.run('c', () => undefined);
    expect(idle).toBe(false);
    b.open();
    await idled;
    await queuedB;
    expect(done).toEqual(['a1', 'a2', 'b']);
    await mutex.idle();
  });
});
