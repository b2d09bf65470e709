/**
 * The contract of `ArtifactShelf`, run against every backend (the filesystem home,
 * PostgreSQL): writes replace by safe name, listings are newest first, downloads give
 * the bytes and type back, the files are readable under `dir` (where runtimes read
 * staged attachments), and everything survives a reopen.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtures } from './fixture.js';
import type { ArtifactShelf } from '../../src/core/chat/artifacts.js';
import type { Clock } from '../../src/core/util/clock.js';

/** Opens shelves of one backend; `cleanup` removes what they wrote. */
export interface ShelfFixture {
  open(structureId: string, nodeId: string): ArtifactShelf;
  /** The same backend opened again (a restart). */
  reopen(): Promise<(structureId: string, nodeId: string) => ArtifactShelf>;
  cleanup(): Promise<void>;
}

async function bytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Registers the shelf contract for one backend. */
export function describeArtifactShelf(name: string, make: (clock: Clock) => Promise<ShelfFixture>): void {
  describe(`ArtifactShelf contract: ${name}`, () => {
    // A clock that moves a second on every reading, so writes are ordered without waiting.
    let tick = Date.parse('2030-01-01T00:00:00.000Z');
    const clock: Clock = { now: () => new Date((tick += 1000)) };
    const fresh = fixtures(() => make(clock));

    it('stores under a safe name, lists newest first, serves bytes and type, and puts a readable file under dir', async () => {
      const fixture = await fresh();
      const shelf = fixture.open(randomUUID(), randomUUID());
      const binary = Buffer.from([0, 1, 2, 255, 254]);
      const first = await shelf.write('../../etc/report.md', '# Report', 'text/markdown');
      expect(first).toMatchObject({ name: 'report.md', size: 8, content_type: 'text/markdown' });
      await shelf.write('data.bin', binary, 'application/octet-stream');
      expect((await shelf.list()).map((info) => info.name)).toEqual(['data.bin', 'report.md']);
      const { info, stream } = await shelf.open('data.bin');
      expect(info).toMatchObject({ name: 'data.bin', size: 5, content_type: 'application/octet-stream' });
      expect(await bytes(stream)).toEqual(binary);
      expect(await readFile(join(shelf.dir, 'report.md'), 'utf8')).toBe('# Report');
      await expect(shelf.open('../report.md')).rejects.toMatchObject({ code: 'not_found' });
      await expect(shelf.open('missing.txt')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('replaces an artifact of the same name, keeps shelves apart, and keeps everything across a reopen', async () => {
      const fixture = await fresh();
      const structureId = randomUUID();
      const nodeId = randomUUID();
      const shelf = fixture.open(structureId, nodeId);
      await shelf.write('notes.txt', 'one', 'text/plain');
      await shelf.write('notes.txt', 'two!', 'text/plain; charset=utf-8');
      expect(await fixture.open(structureId, randomUUID()).list()).toEqual([]);
      const again = (await fixture.reopen())(structureId, nodeId);
      expect(await again.list()).toEqual([expect.objectContaining({ name: 'notes.txt', size: 4, content_type: 'text/plain; charset=utf-8' })]);
      expect((await bytes((await again.open('notes.txt')).stream)).toString()).toBe('two!');
    });
  });
}
