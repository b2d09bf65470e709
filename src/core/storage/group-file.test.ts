import { mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileHandle } from 'node:fs/promises';
import { GroupFile, writeAll } from './group-file.js';

describe('GroupFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-group-file-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends in call order; appends made while a write is in flight share the next write', async () => {
    const file = new GroupFile(join(dir, 'sub', 'log.jsonl'));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => file.append(`${i}\n`)));
    expect(results).toHaveLength(50);
    await file.close();
    expect(await readFile(join(dir, 'sub', 'log.jsonl'), 'utf8')).toBe(Array.from({ length: 50 }, (_, i) => `${i}\n`).join(''));
  });

  it('appends of Buffers, lists of Buffers and text share one write, in call order, byte for byte', async () => {
    const path = join(dir, 'mixed.jsonl');
    const file = new GroupFile(path);
    // More Buffers than one vectored write takes (IOV_MAX is 1024 on Linux), empty ones among them.
    const many = Array.from({ length: 2500 }, (_, i) => Buffer.from(i % 7 === 0 ? '' : `{"n":${i},"é":"ü"}\n`));
    const appends = [file.append('first\n'), file.append(many), file.append(Buffer.from('middle\n')), file.append([Buffer.from('a\n'), Buffer.from('b\n')]), file.append('last\n')];
    await Promise.all(appends);
    await file.close();
    const expected = Buffer.concat([Buffer.from('first\n'), ...many, Buffer.from('middle\na\nb\nlast\n')]);
    expect((await readFile(path)).equals(expected)).toBe(true);
  });

  it('writeAll goes on after short writes, from the byte where the system stopped', async () => {
    const sink: Buffer[] = [];
    let calls = 0;
    // A handle that takes at most 5 bytes per call, cutting Buffers anywhere.
    const take = (buffers: Buffer[]) => {
      calls++;
      let left = 5;
      for (const buffer of buffers) {
        const part = buffer.subarray(0, left);
        sink.push(Buffer.from(part));
        left -= part.length;
        if (left === 0) break;
      }
      return Promise.resolve({ bytesWritten: 5 - left, buffers });
    };
    const handle = { writev: take, write: (buffer: Buffer) => take([buffer]) } as unknown as FileHandle;
    const parts = ['abc', '', 'defghij', 'k', 'lmnopqrstu'].map((text) => Buffer.from(text));
    await writeAll(handle, parts);
    expect(Buffer.concat(sink).toString()).toBe('abcdefghijklmnopqrstu');
    expect(calls).toBe(5);
  });

  it('cuts a line torn by a crash before appending after it', async () => {
    const path = join(dir, 'log.jsonl');
    await writeFile(path, 'whole\ntorn li');
    const file = new GroupFile(path);
    await file.append('next\n');
    await file.close();
    expect(await readFile(path, 'utf8')).toBe('whole\nnext\n');
  });

  it('with records: frames, cuts an SSE frame torn by a crash (even one ending with a line break) before appending after it', async () => {
    const path = join(dir, 'run.sse');
    for (const torn of ['id: 3\n', 'id: 3\ndata: {"a"', 'id: 3\ndata: {"a":1}\n']) {
      await writeFile(path, `: header\n\nid: 2\ndata: {}\n\n${torn}`);
      const file = new GroupFile(path, { records: 'frames' });
      await file.append('id: 3\ndata: {"b":2}\n\n');
      await file.close();
      expect(await readFile(path, 'utf8')).toBe(': header\n\nid: 2\ndata: {}\n\nid: 3\ndata: {"b":2}\n\n');
    }
    // Nothing whole at all: the file is cut to nothing.
    await writeFile(path, 'i');
    const file = new GroupFile(path, { records: 'frames' });
    await file.append(': header\n\n');
    await file.close();
    expect(await readFile(path, 'utf8')).toBe(': header\n\n');
  });

  it('refuses to write through a symbolic link', async () => {
    const target = join(dir, 'elsewhere.txt');
    await writeFile(target, 'outside\n');
    await symlink(target, join(dir, 'log.jsonl'));
    const file = new GroupFile(join(dir, 'log.jsonl'));
    await expect(file.append('x\n')).rejects.toThrow('is a symbolic link');
    expect(await readFile(target, 'utf8')).toBe('outside\n');
    await file.close();
  });

  it('closing after each write still writes appends that arrive while it closes', async () => {
    const path = join(dir, 'log.jsonl');
    const file = new GroupFile(path, { closeWhenIdleMs: 0 });
    const first = file.append('a\n');
    await first;
    // The first flush is now closing the file; this append must not wait for a flush that never comes.
    await file.append('b\n');
    await Promise.all([file.append('c\n'), file.append('d\n')]);
    expect(await readFile(path, 'utf8')).toBe('a\nb\nc\nd\n');
    await file.close();
  });

  it('a file closed when idle stays open between busy writes and is closed by close()', async () => {
    const path = join(dir, 'log.jsonl');
    const file = new GroupFile(path, { closeWhenIdleMs: 60_000 });
    await file.append('a\n');
    expect(await openCount(path)).toBe(1);
    await file.append('b\n');
    expect(await openCount(path)).toBe(1);
    await file.close();
    expect(await openCount(path)).toBe(0);
    expect(await readFile(path, 'utf8')).toBe('a\nb\n');
  });

  it('refuses appends after close', async () => {
    const file = new GroupFile(join(dir, 'log.jsonl'));
    await file.append('a\n');
    await file.close();
    await expect(file.append('b\n')).rejects.toThrow('closed');
  });
});

/** How many of this process's open file descriptors name `path`. */
async function openCount(path: string): Promise<number> {
  const links = await Promise.all((await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return links.filter((link) => link === path).length;
}
