import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awaitStatus, writeStatus } from './postgres.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'org-pg-status-test-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the shared PostgreSQL status file', () => {
  it('a waiter resolves when the server is reported started after it began waiting', async () => {
    let settled = false;
    const waiting = awaitStatus(dir).then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await writeStatus(dir, { ok: true });
    await waiting;
    expect(settled).toBe(true);
  });

  it('a waiter that comes late reads the status already there', async () => {
    await writeStatus(dir, { ok: true });
    await expect(awaitStatus(dir)).resolves.toBeUndefined();
  });

  it('a failed start rejects every waiter with the reason', async () => {
    const waiting = awaitStatus(dir);
    await writeStatus(dir, { ok: false, message: 'initdb: could not create directory' });
    await expect(waiting).rejects.toThrow('the test PostgreSQL server did not start: initdb: could not create directory');
  });
});
