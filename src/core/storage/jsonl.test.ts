import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendJsonl, readJsonl } from './jsonl.js';

describe('JSON Lines', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-jsonl-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads [] for a missing file; appends one line per record, creating folders', async () => {
    const file = join(dir, 'a', 'b', 'log.jsonl');
    expect(await readJsonl(file)).toEqual([]);
    await appendJsonl(file, { n: 1 });
    await appendJsonl(file, { n: 2 }, { n: 3 });
    expect(await readFile(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(await readJsonl(file)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('concurrent appends are serialized: every line whole, none lost', async () => {
    const file = join(dir, 'log.jsonl');
    const text = 'x'.repeat(10_000);
    await Promise.all(Array.from({ length: 40 }, (_, i) => appendJsonl(file, { i, text })));
    const records = await readJsonl<{ i: number; text: string }>(file);
    expect(records.map((record) => record.i)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(records.every((record) => record.text === text)).toBe(true);
  });

  it('a torn last line is skipped by the reader and cut before the next append', async () => {
    const file = join(dir, 'torn.jsonl');
    await writeFile(file, '{"n":1}\n{"n":2}\n{"n":3,"te');
    expect(await readJsonl(file)).toEqual([{ n: 1 }, { n: 2 }]);
    await appendJsonl(file, { n: 4 });
    expect(await readFile(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":4}\n');
    expect(await readJsonl(file)).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
  });

  it('a file that is only a torn line reads as empty and is cut whole', async () => {
    const file = join(dir, 'only-torn.jsonl');
    await writeFile(file, '{"half":');
    expect(await readJsonl(file)).toEqual([]);
    await appendJsonl(file, { ok: true });
    expect(await readFile(file, 'utf8')).toBe('{"ok":true}\n');
  });

  it('a bad line in the middle is corruption, not a torn tail: the reader throws', async () => {
    const file = join(dir, 'corrupt.jsonl');
    await writeFile(file, '{"n":1}\nnot json\n{"n":3}\n');
    await expect(readJsonl(file)).rejects.toThrow(SyntaxError);
  });

  it('with skipMalformed, a bad line anywhere is passed over and the rest is read', async () => {
    const file = join(dir, 'log.jsonl');
    await writeFile(file, '{"n":1}\nnot json\n{"n":3}\n{"n":4,"te');
    expect(await readJsonl(file, { skipMalformed: true })).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('a file that already ends with a newline is not changed before the append', async () => {
    const file = join(dir, 'clean.jsonl');
    await writeFile(file, '{"n":1}\n');
    await appendJsonl(file, { n: 2 });
    expect(await readJsonl(file)).toEqual([{ n: 1 }, { n: 2 }]);
  });
});
