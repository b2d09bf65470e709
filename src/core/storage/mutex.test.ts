import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './mutex.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedMutex', () => {
  it('runs tasks of one key one at a time, in the order queued', async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    let running = 0;
    const task = (name: string, ms: number) => async () => {
      running++;
      expect(running).toBe(1);
      events.push(`start ${name}`);
      await sleep(ms);
      events.push(`end ${name}`);
      running--;
      return name;
    };
    const results = await Promise.all([mutex.run('k', task('a', 30)), mutex.run('k', task('b', 1)), mutex.run('k', task('c', 10))]);
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('runs tasks of different keys concurrently', async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    await Promise.all([
      mutex.run('x', async () => {
        events.push('x start');
        await sleep(30);
        events.push('x end');
      }),
      mutex.run('y', async () => {
        events.push('y start');
        await sleep(1);
        events.push('y end');
      }),
    ]);
    expect(events).toEqual(['x start', 'y start', 'y end', 'x end']);
  });

  it('a failing task rejects its own caller only; the queue goes on', async () => {
    const mutex = new KeyedMutex();
    const order: string[] = [];
    const failing = mutex.run('k', async () => {
      await sleep(5);
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
    await expect(failing).rejects.toThrow('boom');
    await expect(syncThrow).rejects.toThrow('sync boom');
    await expect(next).resolves.toBe(42);
    expect(order).toEqual(['fail', 'sync', 'next']);
  });

  it('idle() waits for every queued task, including ones queued meanwhile', async () => {
    const mutex = new KeyedMutex();
    const done: string[] = [];
    void mutex.run('a', async () => {
      await sleep(10);
      done.push('a1');
      void mutex.run('b', async () => {
        await sleep(10);
        done.push('b');
      });
    });
    void mutex.run('a', async () => {
      await sleep(5);
      done.push('a2');
    });
    await mutex.idle();
    expect(done).toEqual(['a1', 'a2', 'b']);
    await mutex.idle();
  });
});
