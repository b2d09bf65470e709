import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchSkills, type SkillWatcher } from './watcher.js';

/** A debounce no test outlives: a batch arrives only when something flushes it. */
const FOREVER = 3_600_000;

describe('watchSkills', () => {
  let root: string;
  let watcher: SkillWatcher | undefined;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'org-watcher-'));
    await mkdir(root, { recursive: true });
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    await rm(root, { recursive: true, force: true });
  });

  it('flush() hands over what the folder watch reported at once, without waiting out the debounce', async () => {
    const batches: string[][] = [];
    let reported!: () => void;
    const heard = new Promise<void>((resolve) => (reported = resolve));
    watcher = await watchSkills({
      root,
      debounceMs: FOREVER,
      onBatch: (names) => batches.push(names),
      onError: (error) => {
        throw error;
      },
      onReport: (name) => {
        if (name === 'invoices.md') reported();
      },
    });
    await writeFile(join(root, 'invoices.md'), '---\ntype: skill\nname: Invoices\n---\nBody.\n');
    await heard;
    expect(batches).toEqual([]); // pending behind the debounce
    watcher.flush();
    expect(batches).toEqual([['invoices.md']]);
    watcher.flush(); // nothing left: no empty batch
    expect(batches).toEqual([['invoices.md']]);
  });

  it('reports skill files only: hidden files, temp files and other names never reach a batch', async () => {
    const batches: string[][] = [];
    const reports: string[] = [];
    let reported!: () => void;
    const heard = new Promise<void>((resolve) => (reported = resolve));
    watcher = await watchSkills({
      root,
      debounceMs: FOREVER,
      onBatch: (names) => batches.push(names),
      onError: (error) => {
        throw error;
      },
      onReport: (name) => {
        reports.push(name);
        if (name === 'last.md') reported();
      },
    });
    await writeFile(join(root, '.hidden.md'), 'x');
    await writeFile(join(root, 'notes.txt'), 'x');
    await writeFile(join(root, 'draft.md.12345'), 'x');
    await writeFile(join(root, 'draft.md~'), 'x');
    // A later, positive event: once it is reported, the earlier writes have been seen too.
    await writeFile(join(root, 'last.md'), 'x');
    await heard;
    watcher.flush();
    expect(reports.filter((name) => name !== 'last.md')).toEqual([]);
    expect(batches).toEqual([['last.md']]);
  });

  it('reports files created, replaced by a rename (an atomic write) and removed, and nothing in sub-folders', async () => {
    const batches: string[][] = [];
    const heard = new Map<string, () => void>();
    const hear = (name: string) => new Promise<void>((resolve) => heard.set(name, resolve));
    watcher = await watchSkills({
      root,
      debounceMs: FOREVER,
      onBatch: (names) => batches.push([...names].sort()),
      onError: (error) => {
        throw error;
      },
      onReport: (name) => heard.get(name)?.(),
    });
    // The folder's events arrive in order: once a later marker file is reported, every
    // earlier change has been reported too.
    await mkdir(join(root, 'sub'));
    const first = hear('marker-one.md');
    await writeFile(join(root, 'sub', 'inside.md'), 'x');
    await writeFile(join(root, 'one.md'), 'x');
    await writeFile(join(root, 'marker-one.md'), 'x');
    await first;
    watcher.flush();
    const second = hear('marker-two.md');
    await writeFile(join(root, 'two.md.123'), 'y');
    await rename(join(root, 'two.md.123'), join(root, 'two.md'));
    await unlink(join(root, 'one.md'));
    await writeFile(join(root, 'marker-two.md'), 'x');
    await second;
    watcher.flush();
    expect(batches).toEqual([
      ['marker-one.md', 'one.md'],
      ['marker-two.md', 'one.md', 'two.md'],
    ]);
  });
});
