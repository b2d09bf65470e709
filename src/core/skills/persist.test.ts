import { access, mkdir, readFile, utimes, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INDEX_FORMAT, snapshotPath } from './persist.js';
import { decodeSnapshot, encodeSnapshot } from './search/snapshot.js';
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
  const store = await createSkillStore({
    root: home.root,
    stateDir: home.stateDir,
    synonyms: false,
    onFileRead: (slug) => reads.push(slug),
  });
  return { reads, store };
}

describe('persisted index', () => {
  it('re-reads only new, changed and removed files on restart', async () => {
    const first = await start();
    expect(first.reads.length).toBe(20);
    expect(first.store.loadReport.snapshot).toBe('none');
    await first.store.close();
    const saved = decodeSnapshot(await readFile(snapshotPath(home.stateDir)));
    expect((saved.meta as { format: number }).format).toBe(INDEX_FORMAT);
    expect(saved.extra.numbers('mtimes').length).toBe(20);
    expect((JSON.parse(saved.extra.text('entries')) as unknown[]).length).toBe(20);

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

  it('discards a corrupt or old-version snapshot and rebuilds', async () => {
    const first = await start();
    await first.store.close();
    await writeFile(snapshotPath(home.stateDir), '{"format": 1, "tru');
    const corrupt = await start();
    expect(corrupt.store.loadReport.snapshot).toBe('corrupt');
    expect(corrupt.reads.length).toBe(20);
    expect(corrupt.store.search('engine').map((m) => m.slug)).toEqual(['skill-4']);
    await corrupt.store.close();

    const bytes = await readFile(snapshotPath(home.stateDir));
    const { meta, index } = decodeSnapshot(bytes);
    await writeFile(snapshotPath(home.stateDir), encodeSnapshot({ ...(meta as object), format: INDEX_FORMAT - 1 }, index));
    const old = await start();
    expect(old.store.loadReport.snapshot).toBe('old format');
    expect(old.reads.length).toBe(20);
    await old.store.close();

    // Cut short: the sections no longer fit the file.
    await writeFile(snapshotPath(home.stateDir), bytes.subarray(0, bytes.length - 100));
    const broken = await start();
    expect(broken.store.loadReport.snapshot).toBe('corrupt');
    expect(broken.store.count()).toBe(20);
    expect(broken.store.search('engine').map((m) => m.slug)).toEqual(['skill-4']);
    await broken.store.close();

    // A manifest that does not cover the index.
    const current = decodeSnapshot(await readFile(snapshotPath(home.stateDir)));
    const short = { mtimes: current.extra.numbers('mtimes').slice(0, 19), sizes: current.extra.numbers('sizes').slice(0, 19), entries: current.extra.text('entries') };
    await writeFile(snapshotPath(home.stateDir), encodeSnapshot(current.meta, current.index, short));
    const uncovered = await start();
    expect(uncovered.store.loadReport.snapshot).toBe('corrupt');
    expect(uncovered.reads.length).toBe(20);
    await uncovered.store.close();

    // One byte changed in the list entries, which a start with nothing changed never parses:
    // the checksum rejects the file at load, so no later listing can trust a damaged entry.
    const good = await readFile(snapshotPath(home.stateDir));
    const at = good.lastIndexOf(Buffer.from('Skill about pepper'));
    expect(at).toBeGreaterThan(0);
    const damaged = Buffer.from(good);
    damaged[at] = 'Z'.charCodeAt(0);
    await writeFile(snapshotPath(home.stateDir), damaged);
    const flipped = await start();
    expect(flipped.store.loadReport.snapshot).toBe('corrupt');
    expect(flipped.reads.length).toBe(20);
    expect(flipped.store.list().map((entry) => entry.name)).toContain('Skill about pepper');
    await flipped.store.close();

    // The previous layout (the manifest as JSON records in the header) is another format.
    const previous = decodeSnapshot(await readFile(snapshotPath(home.stateDir)));
    await writeFile(snapshotPath(home.stateDir), encodeSnapshot({ ...(previous.meta as object), format: 4, records: {} }, previous.index));
    const legacy = await start();
    expect(legacy.store.loadReport.snapshot).toBe('old format');
    await legacy.store.close();
  });

  it('a start with nothing changed lists every skill from the manifest without reading a file', async () => {
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
