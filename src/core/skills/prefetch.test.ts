import { lstatSync } from 'node:fs';
import { appendFile, mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prefetchLibrary } from './prefetch.js';
import { createSkillStore } from './store.js';
import { tempHome, writeSkillFile, type TempHome } from '../../../test/helpers/skills.js';

let home: TempHome;
const WORDS = 'apple bridge candle dolphin engine falcon guitar harbor island jungle'.split(' ');
beforeEach(async () => {
  home = await tempHome();
  await mkdir(home.root, { recursive: true });
  for (let i = 0; i < 10; i++) await writeSkillFile(home.root, `skill-${i}`, `Skill about ${WORDS[i] ?? ''}`);
});
afterEach(() => home.cleanup());

const signatureNow = (name: string) => {
  const info = lstatSync(join(home.root, name));
  return { mtimeMs: info.mtimeMs, size: info.size };
};

async function store(prefetch?: ReturnType<typeof prefetchLibrary>, watch = true) {
  const reads: string[] = [];
  const opened = await createSkillStore({ root: home.root, stateDir: home.stateDir, synonyms: false, watch, onFileRead: (slug) => reads.push(slug), ...(prefetch ? { prefetch } : {}) });
  return { store: opened, reads };
}

describe('the prefetch of a skills folder', () => {
  it('hands over the lstat signature of every *.md file and link, and nothing else', async () => {
    await writeFile(join(home.root, 'notes.txt'), 'not a skill');
    await mkdir(join(home.root, 'folder.md'));
    await symlink(join(home.root, 'skill-0.md'), join(home.root, 'linked.md'));
    const prefetch = prefetchLibrary(home.root);
    const taken = await prefetch.take();
    expect(taken?.size).toBe(11);
    for (let i = 0; i < 10; i++) expect(taken?.signature(`skill-${i}.md`)).toEqual(signatureNow(`skill-${i}.md`));
    // The link itself, never its target.
    expect(taken?.signature('linked.md')).toEqual(signatureNow('linked.md'));
    expect(taken?.signature('notes.txt')).toBeUndefined();
    expect(taken?.signature('folder.md')).toBeUndefined();
  });

  it('never hands over a signature older than a change made after the worker took it', async () => {
    const prefetch = prefetchLibrary(home.root);
    await prefetch.done;
    // Changed after the worker stat'ed the folder, before the signatures are taken.
    await appendFile(join(home.root, 'skill-2.md'), '\nMore text.\n');
    const later = new Date(Date.now() + 5_000);
    await utimes(join(home.root, 'skill-4.md'), later, later);
    await writeSkillFile(home.root, 'skill-new', 'A new skill');
    const taken = await prefetch.take();
    expect(taken?.signature('skill-2.md')).toBeUndefined();
    expect(taken?.signature('skill-4.md')).toBeUndefined();
    expect(taken?.signature('skill-new.md')).toBeUndefined();
    expect(taken?.signature('skill-3.md')).toEqual(signatureNow('skill-3.md'));
  });

  it('hands over nothing for a folder that does not exist (the load stats every file itself)', async () => {
    const prefetch = prefetchLibrary(join(home.home, 'missing'));
    expect(await prefetch.take()).toBeUndefined();
  });
});

describe('a warm start with a prefetch', () => {
  it('compares the snapshot with the prefetched signatures and reads only what changed meanwhile', async () => {
    const first = await store();
    await first.store.close();

    const prefetch = prefetchLibrary(home.root);
    await prefetch.done;
    // An edit after the worker's stat (as while org serve loads its modules), with the
    // same size, so only the mtime tells.
    await writeSkillFile(home.root, 'skill-5', 'Skill about fennec');
    const later = new Date(Date.now() + 5_000);
    await utimes(join(home.root, 'skill-5.md'), later, later);
    const second = await store(prefetch);
    expect(second.reads).toEqual(['skill-5']);
    expect(second.store.loadReport).toMatchObject({ snapshot: 'used', reused: 9, prefetched: 9, read: 1 });
    expect(second.store.search('fennec').map((m) => m.slug)).toEqual(['skill-5']);
    expect(second.store.search('falcon')).toEqual([]);
    await second.store.close();
  });

  it('sees a change made after the worker took its signatures without a watcher too', async () => {
    const first = await store(undefined, false);
    await first.store.close();
    const prefetch = prefetchLibrary(home.root);
    await prefetch.done;
    await writeSkillFile(home.root, 'skill-1', 'Skill about tulips, rewritten');
    const second = await store(prefetch, false);
    expect(second.reads).toEqual(['skill-1']);
    expect(second.store.loadReport.prefetched).toBe(9);
    expect(second.store.search('tulips').map((m) => m.slug)).toEqual(['skill-1']);
    await second.store.close();
  });

  it('is not used for another folder: every file is stat-ed by the load', async () => {
    const first = await store();
    await first.store.close();
    const other = await tempHome();
    try {
      await mkdir(other.root, { recursive: true });
      // Same names, other files: a prefetch of this folder must not vouch for the real one.
      for (let i = 0; i < 10; i++) await writeSkillFile(other.root, `skill-${i}`, 'Another library');
      await writeSkillFile(home.root, 'skill-6', 'Skill about gazelle, rewritten');
      const later = new Date(Date.now() + 5_000);
      await utimes(join(home.root, 'skill-6.md'), later, later);
      const second = await store(prefetchLibrary(other.root));
      expect(second.reads).toEqual(['skill-6']);
      expect(second.store.loadReport.prefetched).toBe(0);
      expect(second.store.search('gazelle').map((m) => m.slug)).toEqual(['skill-6']);
      await second.store.close();
    } finally {
      await other.cleanup();
    }
  });
});
