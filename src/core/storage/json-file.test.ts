import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonFile, pendingWrites } from './json-file.js';

interface Doc {
  items: number[];
}

describe('JsonFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-jsonfile-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads the initial value when absent and writes pretty JSON with mode 0600 on update', async () => {
    const file = join(dir, 'nested', 'doc.json');
    const doc = new JsonFile<Doc>(file, () => ({ items: [] }));
    expect(await doc.load()).toEqual({ items: [] });
    await expect(readFile(file)).rejects.toThrow();
    const result = await doc.update((draft) => {
      draft.items.push(1);
      return 'done';
    });
    expect(result).toBe('done');
    const text = await readFile(file, 'utf8');
    expect(text).toBe('{\n  "items": [\n    1\n  ]\n}\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(doc.current).toEqual({ items: [1] });
  });

  it('loads the stored value, and does not call `initial` when the file exists', async () => {
    const file = join(dir, 'doc.json');
    await writeFile(file, JSON.stringify({ items: [7] }));
    const doc = new JsonFile<Doc>(file, () => {
      throw new Error('initial must not run');
    });
    expect(await doc.load()).toEqual({ items: [7] });
  });

  it('current throws before load', () => {
    const doc = new JsonFile<Doc>(join(dir, 'doc.json'), () => ({ items: [] }));
    expect(() => doc.current).toThrow(/not loaded/);
  });

  it('a throwing change writes nothing and leaves the current value alone', async () => {
    const file = join(dir, 'doc.json');
    const doc = new JsonFile<Doc>(file, () => ({ items: [] }));
    await doc.load();
    await doc.update((draft) => void draft.items.push(1));
    const before = await readFile(file, 'utf8');
    await expect(
      doc.update((draft) => {
        draft.items.push(2);
        draft.items[0] = 99;
        throw new Error('rejected');
      }),
    ).rejects.toThrow('rejected');
    expect(doc.current).toEqual({ items: [1] });
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(await readdir(dir)).toEqual(['doc.json']);
    // And the next update still works.
    await doc.update((draft) => void draft.items.push(3));
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ items: [1, 3] });
  });

  it('the current value changes only once the write is on disk', async () => {
    const file = join(dir, 'doc.json');
    const doc = new JsonFile<Doc>(file, () => ({ items: [] }));
    await doc.load();
    const pending = doc.update((draft) => void draft.items.push(1));
    expect(doc.current).toEqual({ items: [] });
    await pending;
    expect(doc.current).toEqual({ items: [1] });
  });

  it('concurrent updates all land, in order, on disk and in memory', async () => {
    const file = join(dir, 'doc.json');
    const doc = new JsonFile<Doc>(file, () => ({ items: [] }));
    await doc.load();
    await Promise.all(Array.from({ length: 50 }, (_, i) => doc.update((draft) => void draft.items.push(i))));
    const expected = Array.from({ length: 50 }, (_, i) => i);
    expect(doc.current.items).toEqual(expected);
    expect((JSON.parse(await readFile(file, 'utf8')) as Doc).items).toEqual(expected);
    // Two handles on one file share the per-file lock, so neither loses the other's writes.
    const other = new JsonFile<Doc>(file, () => ({ items: [] }));
    await other.load();
    await Promise.all([other.update((draft) => void draft.items.push(100)), other.update((draft) => void draft.items.push(101))]);
    expect((JSON.parse(await readFile(file, 'utf8')) as Doc).items.slice(-2)).toEqual([100, 101]);
  });

  it('pendingWrites resolves after queued writes are done; no temp files are left', async () => {
    const file = join(dir, 'doc.json');
    const doc = new JsonFile<Doc>(file, () => ({ items: [] }));
    await doc.load();
    for (let i = 0; i < 10; i++) void doc.update((draft) => void draft.items.push(i));
    await pendingWrites();
    expect((JSON.parse(await readFile(file, 'utf8')) as Doc).items).toHaveLength(10);
    expect(await readdir(dir)).toEqual(['doc.json']);
  });
});
