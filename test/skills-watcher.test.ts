import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSkillStore, type SkillChangeEvent, type SkillStore } from '../src/core/skills/index.js';
import { frontmatter, nextChange, skillText, tempHome, type TempHome } from './helpers/skills.js';

let home: TempHome;
let store: SkillStore;
let events: SkillChangeEvent[];

beforeEach(async () => {
  home = await tempHome('org-watch-');
  events = [];
  store = await createSkillStore({
    root: home.root,
    stateDir: home.stateDir,
    watch: true,
    synonyms: false,
    onChange: (event) => events.push(event),
  });
});
afterEach(async () => {
  await store.close();
  await home.cleanup();
});

const file = (slug: string): string => join(home.root, `${slug}.md`);
const text = (name: string, status = 'complete'): string =>
  skillText(['type: skill', `name: ${JSON.stringify(name)}`, `status: ${status}`], `${name}.\n\n## [a] Step 1: ${name}\n`);
const found = (query: string): string[] => store.search(query).map((m) => m.slug);
/** The next watcher upsert of `slug` after which `holds` is true of the store. */
const upserted = (slug: string, holds: () => boolean = () => true) =>
  nextChange(store, (event) => event.type === 'upsert' && event.slug === slug && event.source === 'watcher' && holds(), `the watcher's upsert of ${slug}`);
const removed = (slug: string) => nextChange(store, (event) => event.type === 'remove' && event.slug === slug && event.source === 'watcher', `the watcher's removal of ${slug}`);

// Each test waits for the store's change event of an edit, never for a span of time; the
// latency from an edit to its event is measured by `npm run bench -- search-core`.
describe('watcher', () => {
  it('picks up an added file in list, get and search', async () => {
    const added = upserted('walrus-care');
    await writeFile(file('walrus-care'), text('Walrus care'));
    expect(await added).toEqual({ type: 'upsert', slug: 'walrus-care', created: true, source: 'watcher' });
    expect(found('walrus')).toEqual(['walrus-care']);
    expect(store.list().map((e) => e.slug)).toEqual(['walrus-care']);
    expect((await store.get('walrus-care'))?.steps).toEqual([{ id: 'a', n: 1, title: 'Walrus care' }]);
  });

  it('follows a structure’s folder made after the start: its skill is searchable by that structure only, and its edits replace it', async () => {
    const structureId = '3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b';
    const scoped = (query: string) => store.search(query, { structureId }).map((m) => m.slug);
    const own = (name: string) => skillText(['type: skill', `name: ${name}`, 'status: complete', `structure_id: ${structureId}`], `${name}.\n\n## [a] Step 1: ${name}\n`);
    let applied = upserted('narwhal-care');
    await mkdir(join(home.root, structureId));
    await writeFile(join(home.root, structureId, 'narwhal-care.md'), own('Narwhal care'));
    expect(await applied).toEqual({ type: 'upsert', slug: 'narwhal-care', structure_id: structureId, created: true, source: 'watcher' });
    expect(scoped('narwhal')).toEqual(['narwhal-care']);
    expect(found('narwhal')).toEqual([]);
    applied = upserted('narwhal-care', () => scoped('beluga').length > 0);
    await writeFile(join(home.root, structureId, 'narwhal-care.md'), own('Beluga care'));
    await applied;
    expect(scoped('narwhal')).toEqual([]);
    expect(scoped('beluga')).toEqual(['narwhal-care']);
  });

  it('picks up a change, an unlink and a rename', async () => {
    let applied = upserted('otter');
    await writeFile(file('otter'), text('Otter feeding'));
    await applied;
    expect(found('otter')).toEqual(['otter']);

    applied = upserted('otter', () => store.list()[0]?.name === 'Beaver feeding');
    await writeFile(file('otter'), text('Beaver feeding'));
    await applied;
    expect(found('beaver')).toEqual(['otter']);
    expect(found('otter')).toEqual([]);

    const gone = removed('otter');
    applied = upserted('beaver');
    await rename(file('otter'), file('beaver'));
    await Promise.all([gone, applied]);
    expect(store.list().map((e) => e.slug)).toEqual(['beaver']);
    expect(found('beaver')).toEqual(['beaver']);
    expect(await store.get('otter')).toBeUndefined();

    const unlinked = removed('beaver');
    await unlink(file('beaver'));
    await unlinked;
    expect(store.count()).toBe(0);
    expect(found('beaver')).toEqual([]);
    expect(await store.get('beaver')).toBeUndefined();
  });

  it('follows an editor save through a temp file and rename', async () => {
    let applied = upserted('heron');
    await writeFile(file('heron'), text('Heron watching'));
    await applied;
    expect(found('heron')).toEqual(['heron']);
    const temp = join(home.root, '.heron.md.swp');
    await writeFile(temp, text('Pelican watching'));
    await writeFile(join(home.root, 'heron.md~'), 'backup');
    applied = upserted('heron', () => store.list()[0]?.name === 'Pelican watching');
    await rename(temp, file('heron'));
    await applied;
    expect(found('pelican')).toEqual(['heron']);
    expect(found('heron')).toEqual([]);
    expect(store.count()).toBe(1);
    expect(store.problems()).toEqual([]);
  });

  it('records a broken edit as a problem and recovers when fixed', async () => {
    const added = upserted('crane');
    await writeFile(file('crane'), text('Crane care'));
    await added;
    expect(store.count()).toBe(1);
    const broken = nextChange(store, (event) => event.type === 'problem' && event.file === 'crane.md', 'the problem of crane.md');
    await writeFile(file('crane'), '---\nname: [\n---\n');
    await broken;
    expect(store.problems().map((problem) => problem.file)).toEqual(['crane.md']);
    expect(store.count()).toBe(0);
    const fixed = upserted('crane', () => store.problems().length === 0);
    await writeFile(file('crane'), text('Crane care fixed'));
    await fixed;
    expect(store.count()).toBe(1);
    expect(store.list()[0]?.name).toBe('Crane care fixed');
  });

  // The latency of a burst is measured by `npm run bench -- search-core` (burst1000Ms). This
  // test checks the behaviour: every file of the burst applied, none lost or doubled.
  it('applies a 1,000-file burst (a git checkout) completely', async () => {
    const slugs = new Set<string>();
    const all = nextChange(
      store,
      (event) => {
        if (event.type === 'upsert' && event.source === 'watcher') slugs.add(event.slug);
        return slugs.size === 1000;
      },
      'upserts of all 1,000 files',
    );
    const writes = [];
    for (let i = 0; i < 1000; i++) writes.push(writeFile(file(`burst-${i}`), text(`Burst skill ${i} kiwi${i === 777 ? ' papaya' : ''}`)));
    await Promise.all(writes);
    await all;
    expect(store.count()).toBe(1000);
    expect((await store.get('burst-999'))?.frontmatter.name).toBe('Burst skill 999 kiwi');
    expect(found('papaya')).toEqual(['burst-777']);
  });

  it('treats the store’s own writes as already applied', async () => {
    await store.upsert({ slug: 'own-write', frontmatter: frontmatter(), body: 'x' });
    await store.remove('own-write');
    await store.restore('own-write');
    // A later edit from outside: once the watcher has applied it (and settle() has applied
    // whatever it reported with it), the store's own writes have been seen by the watcher too.
    const marker = upserted('marker');
    await writeFile(file('marker'), text('Marker'));
    await marker;
    await store.settle();
    expect(events.map((e) => `${e.type}:${e.source}`)).toEqual(['upsert:api', 'remove:api', 'restore:api', 'upsert:watcher']);
    expect(store.count()).toBe(2);
  });
});
