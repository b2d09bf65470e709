/** The home lock: one server per home, a live holder refuses the next, a dead one is taken over. */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireHomeLock, lockPath } from './home-lock.js';

describe('acquireHomeLock', () => {
  it('refuses a second server while the first lives, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-lock-'));
    const first = await acquireHomeLock(dir, '/homes/acme', { pid: 1111, host: 'h' });
    await first.setUrl('http://127.0.0.1:4780');
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toMatchObject({ pid: 1111, host: 'h', url: 'http://127.0.0.1:4780' });
    await expect(acquireHomeLock(dir, '/homes/acme', { pid: 2222, host: 'h', isAlive: () => true })).rejects.toMatchObject({
      code: 'conflict',
      message: '/homes/acme is already served by org serve (pid 1111, http://127.0.0.1:4780); stop it first, or serve another home with --home',
    });
    await first.release();
    const second = await acquireHomeLock(dir, '/homes/acme', { pid: 2222, host: 'h', isAlive: () => true });
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toMatchObject({ pid: 2222 });
    await second.release();
  });

  it('takes over the lock of a process that is gone, and of a lock cut off mid-write', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-lock-'));
    await acquireHomeLock(dir, '/h', { pid: 1111, host: 'h' }); // never released: a crash
    const next = await acquireHomeLock(dir, '/h', { pid: 2222, host: 'h', isAlive: (pid) => pid !== 1111 });
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toMatchObject({ pid: 2222 });
    await next.release();
    await writeFile(lockPath(dir), '{"pi');
    const after = await acquireHomeLock(dir, '/h', { pid: 3333, host: 'h', isAlive: () => true });
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toMatchObject({ pid: 3333 });
    await after.release();
  });

  it('a lock held on another host is not second-guessed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-lock-'));
    await acquireHomeLock(dir, '/h', { pid: 1111, host: 'elsewhere' });
    await expect(acquireHomeLock(dir, '/h', { pid: 2222, host: 'here', isAlive: () => false })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('on elsewhere') });
  });

  it('release leaves a lock that is no longer its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-lock-'));
    const stale = await acquireHomeLock(dir, '/h', { pid: 1111, host: 'h' });
    const taker = await acquireHomeLock(dir, '/h', { pid: 2222, host: 'h', isAlive: () => false });
    await stale.release();
    expect(JSON.parse(await readFile(lockPath(dir), 'utf8'))).toMatchObject({ pid: 2222 });
    await taker.release();
  });
});
