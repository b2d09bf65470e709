import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSkillFileName } from './load.js';
import { watchSkills, type SkillWatcher, type WatchedChange } from './watch.js';

/** A debounce no test outlives: a batch arrives only when something flushes it. */
const FOREVER = 3_600_000;
/** What the store watches: skill files of the folder itself. */
const accepts = (file: string, dir: boolean | undefined) => !file.includes('/') && dir !== true && isSkillFileName(file);

describe('watchSkills (chokidar)', () => {
  let root: string;
  let outside: string;
  let watcher: SkillWatcher | undefined;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'org-watch-'));
    outside = await mkdtemp(join(tmpdir(), 'org-watch-outside-'));
  });
  afterEach(async () => {
    await watcher?.close();
    watcher = undefined;
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  /** Starts a watcher that collects its batches; `heard(file)` resolves when chokidar reports that file. */
  async function start(): Promise<{ batches: WatchedChange[][]; heard(file: string): Promise<void> }> {
    const batches: WatchedChange[][] = [];
    const waiting = new Map<string, () => void>();
    watcher = watchSkills({
      root,
      accepts,
      debounceMs: FOREVER,
      onBatch: (changes) => batches.push(changes.sort((a, b) => (a.file < b.file ? -1 : 1))),
      onError: (error) => {
        throw error;
      },
      onReport: (file) => waiting.get(file)?.(),
    });
    await watcher.ready;
    return { batches, heard: (file) => new Promise<void>((resolve) => waiting.set(file, resolve)) };
  }

  it('reports every file present in its first scan, with the signature it saw', async () => {
    await writeFile(join(root, 'one.md'), 'abc');
    await writeFile(join(root, 'notes.txt'), 'x');
    const { batches } = await start();
    watcher?.flush();
    expect(batches).toEqual([[{ file: 'one.md', seen: { mtimeMs: expect.any(Number) as number, size: 3 } }]]);
  });

  it('flush() hands over what was reported at once, without waiting out the debounce', async () => {
    const { batches, heard } = await start();
    const reported = heard('invoices.md');
    await writeFile(join(root, 'invoices.md'), '---\ntype: skill\nname: Invoices\n---\nBody.\n');
    await reported;
    expect(batches).toEqual([]); // pending behind the debounce
    watcher?.flush();
    expect(batches.map((batch) => batch.map((c) => c.file))).toEqual([['invoices.md']]);
    watcher?.flush(); // nothing left: no empty batch
    expect(batches.length).toBe(1);
  });

  it('reports skill files only: hidden files, temp files, other names and sub-folders never reach a batch', async () => {
    const { batches, heard } = await start();
    await mkdir(join(root, 'sub'));
    await writeFile(join(root, 'sub', 'inside.md'), 'x');
    await writeFile(join(root, '.hidden.md'), 'x');
    await writeFile(join(root, 'notes.txt'), 'x');
    await writeFile(join(root, 'draft.md.12345'), 'x');
    await writeFile(join(root, 'draft.md~'), 'x');
    // A later, positive event: once it is reported, the earlier writes have been seen too.
    const last = heard('last.md');
    await writeFile(join(root, 'last.md'), 'x');
    await last;
    watcher?.flush();
    expect(batches.map((batch) => batch.map((c) => c.file))).toEqual([['last.md']]);
  });

  it('reports files created, replaced by a rename (an atomic write) and removed', async () => {
    await writeFile(join(root, 'one.md'), 'x');
    const { batches, heard } = await start();
    watcher?.flush();
    batches.length = 0;
    const replaced = heard('two.md');
    await writeFile(join(root, 'two.md.123'), 'y');
    await rename(join(root, 'two.md.123'), join(root, 'two.md'));
    await replaced;
    const removed = heard('one.md');
    await unlink(join(root, 'one.md'));
    await removed;
    watcher?.flush();
    expect(batches).toEqual([[{ file: 'one.md', seen: 'gone' }, { file: 'two.md', seen: { mtimeMs: expect.any(Number) as number, size: 1 } }]]);
  });

  it('reports a link as itself and never follows it: a change of its target is not seen', async () => {
    await writeFile(join(outside, 'secret.md'), 'secret');
    const { batches, heard } = await start();
    const linked = heard('late.md');
    await symlink(join(outside, 'secret.md'), join(root, 'late.md'));
    await linked;
    watcher?.flush();
    expect(batches.map((batch) => batch.map((c) => c.file))).toEqual([['late.md']]);
    await writeFile(join(outside, 'secret.md'), 'changed secret');
    const marker = heard('marker.md');
    await writeFile(join(root, 'marker.md'), 'x');
    await marker;
    watcher?.flush();
    expect(batches.map((batch) => batch.map((c) => c.file))).toEqual([['late.md'], ['marker.md']]);
  });
});
