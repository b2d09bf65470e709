import { access, mkdir, readFile, utimes, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_FORMAT, snapshotPath } from './snapshot.js';
import { createSkillStore, openSkillStore } from './store.js';
import { tempHome, writeSkillFile, type TempHome } from '../../../test/helpers/skills.js';

let home: TempHome;
const WORDS = 'apple bridge candle dolphin engine falcon guitar harbor island jungle kettle lantern meadow needle orchard pepper quartz river saddle tunnel'.split(' ');
beforeEach(async () => {
  home = await tempHome();
  await mkdir(home.root, { recursive: true });
  for (let i = 0; i < 20; i++) await writeSkillFile(home.root, `skill-${i}`, `Skill about ${WORDS[i] ?? ''}`);
});
afterEach(() => home.cleanup());

async function start(): Promise<{ reads: string[]; store: Awaited<ReturnType<typeof createSkillStore>> }> {
  const reads: string[] = [];
  const store = await createSkillStore({ root: home.root, stateDir: home.stateDir, synonyms: false, onFileRead: (slug) => reads.push(slug) });
  return { reads, store };
}

/** The snapshot's three lines: header, signatures, index. */
async function lines(): Promise<[string, string, string]> {
  const text = await readFile(snapshotPath(home.stateDir), 'utf8');
  const first = text.indexOf('\n');
  const second = text.indexOf('\n', first + 1);
  return [text.slice(0, first), text.slice(first + 1, second), text.slice(second + 1)];
}

describe('the index snapshot (MiniSearch’s JSON and the files’ signatures)', () => {
  it('re-reads only new, changed and removed files on restart', async () => {
    const first = await start();
    expect(first.reads.length).toBe(20);
    expect(first.store.loadReport.snapshot).toBe('none');
    await first.store.close();
    const [header, signatures, index] = await lines();
    expect(JSON.parse(header)).toMatchObject({ format: INDEX_FORMAT, root: home.root });
    expect(Object.keys(JSON.parse(signatures) as object).length).toBe(20);
    // The index lines: the structures' own skills (none here), the spellings, then MiniSearch's own JSON.
    const [own, , json] = index.split('\n');
    expect(JSON.parse(own ?? '')).toEqual({});
    const mini = JSON.parse(json ?? '') as { documentCount: number; serializationVersion: number };
    expect(mini).toMatchObject({ documentCount: 20, serializationVersion: 2 });

    await writeSkillFile(home.root, 'skill-3', 'Skill three changed about zebras');
    const later = new Date(Date.now() + 5_000);
    await utimes(join(home.root, 'skill-3.md'), later, later);
    await writeSkillFile(home.root, 'skill-new', 'Brand new skill about giraffes');
    await unlink(join(home.root, 'skill-7.md')); // harbor

    const second = await start();
    expect(second.reads.sort()).toEqual(['skill-3', 'skill-new']);
    expect(second.store.loadReport).toMatchObject({ snapshot: 'used', reused: 18, read: 2, removed: 1 });
    expect(second.store.count()).toBe(20);
    expect(second.store.search('zebras').map((m) => m.slug)).toEqual(['skill-3']);
    expect(second.store.search('giraffes').map((m) => m.slug)).toEqual(['skill-new']);
    expect(second.store.search('harbor')).toEqual([]);
    expect(second.store.search('pepper').map((m) => m.slug)).toEqual(['skill-15']);
    await second.store.close();

    const third = await start();
    expect(third.reads).toEqual([]);
    await third.store.close();
  });

  it('is ready before the start-up snapshot is saved; settling saves it', async () => {
    const exists = (path: string) => access(path).then(() => true, () => false);
    // A persist delay no test run reaches: only settle (or close) can have written the snapshot.
    const store = openSkillStore({ root: home.root, stateDir: home.stateDir, synonyms: false, persistDelayMs: 3_600_000 });
    await store.ready();
    expect(store.search('pepper').map((m) => m.slug)).toEqual(['skill-15']);
    expect(await exists(snapshotPath(home.stateDir))).toBe(false);
    await store.settle();
    expect(await exists(snapshotPath(home.stateDir))).toBe(true);
    await store.close();
  });

  it('sets aside a snapshot that is cut short, damaged, of another format or of another folder, and rebuilds', async () => {
    const first = await start();
    await first.store.close();
    const good = await readFile(snapshotPath(home.stateDir), 'utf8');
    const attempt = async (text: string, reason: string) => {
      await writeFile(snapshotPath(home.stateDir), text);
      const again = await start();
      expect(again.store.loadReport.snapshot).toBe(reason);
      expect(again.reads.length).toBe(20);
      expect(again.store.count()).toBe(20);
      expect(again.store.search('engine').map((m) => m.slug)).toEqual(['skill-4']);
      expect(again.store.list().map((entry) => entry.name)).toContain('Skill about pepper');
      await again.store.close();
    };
    await attempt('{"format": 6, "tru', 'corrupt');
    await attempt(good.slice(0, good.length - 100), 'corrupt');
    // One character changed in a stored list entry, which a start with nothing changed would
    // otherwise serve as is: the checksum rejects the file.
    const at = good.lastIndexOf('Skill about pepper');
    expect(at).toBeGreaterThan(0);
    await attempt(`${good.slice(0, at)}Z${good.slice(at + 1)}`, 'corrupt');
    const [header, ...rest] = good.split('\n');
    const meta = JSON.parse(header ?? '{}') as Record<string, unknown>;
    await attempt([JSON.stringify({ ...meta, format: INDEX_FORMAT - 1 }), ...rest].join('\n'), 'old format');
    await attempt([JSON.stringify({ ...meta, root: '/elsewhere' }), ...rest].join('\n'), 'other root');
    // Signatures that do not cover the index (the checksum recomputed: the mismatch itself is caught).
    const signatures = JSON.parse(rest[0] ?? '{}') as Record<string, unknown>;
    delete signatures['skill-1'];
    const body = [JSON.stringify(signatures), ...rest.slice(1)].join('\n');
    const { crc32 } = await import('node:zlib');
    await attempt(`${JSON.stringify({ ...meta, crc32: crc32(body), length: body.length })}\n${body}`, 'corrupt');
  });

  it('a start with nothing changed lists every skill from the snapshot without reading a file', async () => {
    const first = await start();
    const listed = first.store.list({ statuses: ['complete', 'draft', 'deprecated'] });
    await first.store.close();
    const again = await start();
    expect(again.reads).toEqual([]);
    expect(again.store.loadReport).toMatchObject({ snapshot: 'used', reused: 20, read: 0 });
    expect(again.store.count()).toBe(20);
    expect(again.store.list({ statuses: ['complete', 'draft', 'deprecated'] })).toEqual(listed);
    await again.store.close();
  });
});
