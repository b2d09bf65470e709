import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrgError } from '../errors.js';
import { createSkillStore, type SkillStore } from './store.js';
import { frontmatter, skillText, tempHome, writeSkillFile, type TempHome } from '../../../test/helpers/skills.js';
import type { SkillChangeEvent } from './events.js';

let home: TempHome;
let store: SkillStore | undefined;
const fixed = new Date('2026-03-01T12:00:00.000Z');
const S1 = '0b6f1a52-0000-4000-8000-000000000001';
const S2 = '0b6f1a52-0000-4000-8000-000000000002';

beforeEach(async () => {
  home = await tempHome();
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  await home.cleanup();
});

async function open(extra: Partial<Parameters<typeof createSkillStore>[0]> = {}): Promise<SkillStore> {
  store = await createSkillStore({ root: home.root, stateDir: home.stateDir, clock: () => fixed, synonyms: false, ...extra });
  return store;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OrgError) return `${error.code}:${JSON.stringify(error.errors ?? [])}`;
    throw error;
  }
  return 'ok';
}

describe('upsert', () => {
  it('creates then updates, keeping learned_at and defaulting learned_by to user', async () => {
    const s = await open();
    const fm = frontmatter();
    delete fm.learned_at;
    delete fm.learned_by;
    const first = await s.upsert({ slug: 'chase-invoices', frontmatter: fm, body: '## [a] Step 1: Remind\n' });
    expect(first.created).toBe(true);
    expect(first.skill.frontmatter.learned_at).toBe(fixed.toISOString());
    expect(first.skill.frontmatter.learned_by).toBe('user');
    expect(first.skill.steps).toEqual([{ id: 'a', n: 1, title: 'Remind' }]);

    const second = await s.upsert({
      slug: 'chase-invoices',
      frontmatter: frontmatter({ learned_at: '2020-01-01T00:00:00.000Z', name: 'Renamed' }),
      body: 'new body',
    });
    expect(second.created).toBe(false);
    expect(second.skill.frontmatter.learned_at).toBe(fixed.toISOString());
    expect(second.skill.frontmatter.name).toBe('Renamed');
    expect(await s.get('chase-invoices')).toEqual(second.skill);
    const text = await readFile(join(home.root, 'chase-invoices.md'), 'utf8');
    expect(text).toContain('name: Renamed');
    expect(s.list().map((e) => e.name)).toEqual(['Renamed']);
  });

  it('rejects invalid skills with field errors', async () => {
    const s = await open();
    expect(await codeOf(s.upsert({ slug: 'x', frontmatter: frontmatter({ status: 'done' }), body: '' }))).toBe(
      'invalid_request:[{"path":"frontmatter.status","message":"must be one of draft, complete, deprecated"}]',
    );
    expect(await codeOf(s.upsert({ slug: 'x', frontmatter: frontmatter({ type: 'note', name: ' ' }), body: '' }))).toContain(
      'frontmatter.name',
    );
    expect(await codeOf(s.upsert({ slug: 'x', frontmatter: frontmatter({ tags: 'a' }), body: '' }))).toContain('frontmatter.tags');
    expect(await codeOf(s.upsert({ slug: 'x', frontmatter: frontmatter(), body: 'x'.repeat(256 * 1024 + 1) }))).toContain(
      '"path":"body"',
    );
    expect(await codeOf(s.upsert({ slug: 'x', frontmatter: frontmatter(), body: 'x'.repeat(256 * 1024) }))).toBe('ok');
    expect(await codeOf(s.upsert({ slug: 'y', frontmatter: 'nope', body: '' }))).toContain('"path":"frontmatter"');
  });

  it('rejects slugs that could leave the skills folder', async () => {
    const s = await open();
    for (const slug of ['../evil', 'a/b', '..', '.hidden', 'UPPER', 'a--b', '-a', 'a'.repeat(65), '', 'a\\b', 'a.md']) {
      expect(await codeOf(s.upsert({ slug, frontmatter: frontmatter(), body: '' }))).toMatch(/^invalid_request:.*"path":"slug"/);
      expect(await codeOf(s.remove(slug))).toMatch(/^invalid_request/);
      expect(await s.get(slug)).toBeUndefined();
    }
    expect(await readdir(home.home)).not.toContain('evil.md');
    expect(await codeOf(s.upsert({ slug: 'a'.repeat(64), frontmatter: frontmatter(), body: '' }))).toBe('ok');
  });

  it('keeps a structure’s skill to its structure, in its folder', async () => {
    const s = await open();
    await s.upsert({ slug: 'mine', frontmatter: frontmatter({ structure_id: S1 }), body: '', structureId: S1 });
    expect(await readFile(join(home.root, S1, 'mine.md'), 'utf8')).toContain(`structure_id: ${S1}`);
    // Another structure's `mine` is another skill: S2 neither sees nor changes S1's.
    expect(await codeOf(s.remove('mine', { structureId: S2 }))).toMatch(/^not_found/);
    expect(await codeOf(s.upsert({ slug: 'other', frontmatter: frontmatter({ structure_id: S2 }), body: '', structureId: S1 }))).toContain(
      'frontmatter.structure_id',
    );
    expect(s.list({ structureId: S1 }).map((e) => e.slug)).toEqual(['mine']);
    expect(s.list({ structureId: S2 })).toEqual([]);
    expect(s.list()).toEqual([]);
    expect(await s.get('mine', S2)).toBeUndefined();
    expect(await s.get('mine')).toBeUndefined();
  });
});

describe('list and search filters', () => {
  it('filters by status (deprecated hidden by default), category, tag and structure', async () => {
    const s = await open();
    await s.upsert({ slug: 'b-draft', frontmatter: frontmatter({ status: 'draft', category: 'ops', tags: ['t1'] }), body: '' });
    await s.upsert({ slug: 'a-done', frontmatter: frontmatter({ tags: ['t1', 't2'] }), body: '' });
    await s.upsert({ slug: 'c-old', frontmatter: frontmatter({ status: 'deprecated' }), body: '' });
    expect(s.list().map((e) => e.slug)).toEqual(['a-done', 'b-draft']);
    expect(s.list({ statuses: ['deprecated'] }).map((e) => e.slug)).toEqual(['c-old']);
    expect(s.list({ category: 'ops' }).map((e) => e.slug)).toEqual(['b-draft']);
    expect(s.list({ tag: 't2' }).map((e) => e.slug)).toEqual(['a-done']);
    expect(await s.get('c-old')).toMatchObject({ slug: 'c-old', frontmatter: { status: 'deprecated' } });
    expect(s.count()).toBe(3);
  });

  it('searches only complete skills visible to the structure and validates its arguments', async () => {
    const s = await open();
    const fm = (o: Record<string, unknown>) => frontmatter({ name: 'Chase overdue invoices', ...o });
    await s.upsert({ slug: 'invoices-draft', frontmatter: fm({ status: 'draft' }), body: '' });
    await s.upsert({ slug: 'invoices-old', frontmatter: fm({ status: 'deprecated' }), body: '' });
    await s.upsert({ slug: 'invoices-s1', frontmatter: fm({}), body: '', structureId: S1 });
    await s.upsert({ slug: 'invoices', frontmatter: fm({}), body: '' });
    expect(s.search('overdue invoices').map((m) => m.slug)).toEqual(['invoices']);
    expect(s.search('overdue invoices', { structureId: S1 }).map((m) => m.slug).sort()).toEqual(['invoices', 'invoices-s1']);
    expect(s.search('overdue invoices')[0]?.reason).toBe('matched "overdue" and "invoices" in the name');
    expect(() => s.search('')).toThrow(OrgError);
    expect(() => s.search('x'.repeat(1001))).toThrow(OrgError);
    expect(() => s.search('x', { limit: 0 })).toThrow(OrgError);
    expect(() => s.search('x', { limit: 51 })).toThrow(OrgError);
    expect(s.search('x'.repeat(1000), { limit: 50 })).toEqual([]);
  });
});

describe('delete and restore', () => {
  it('moves files to .deleted and back, with 404 and 409 cases', async () => {
    let now = new Date('2026-03-01T12:00:00.000Z');
    const s = await open({ clock: () => now });
    await s.upsert({ slug: 'chase', frontmatter: frontmatter({ name: 'First' }), body: '' });
    await s.remove('chase');
    expect(await readdir(join(home.root, '.deleted'))).toEqual(['chase--2026-03-01T12-00-00.000Z.md']);
    expect(await s.get('chase')).toBeUndefined();
    expect(s.list()).toEqual([]);
    expect(s.search('chase')).toEqual([]);
    expect(await codeOf(s.remove('chase'))).toMatch(/^not_found/);

    now = new Date('2026-03-02T12:00:00.000Z');
    await s.upsert({ slug: 'chase', frontmatter: frontmatter({ name: 'Second' }), body: '' });
    expect(await codeOf(s.restore('chase'))).toMatch(/^conflict/);
    await s.remove('chase');
    expect(await s.listDeleted()).toEqual([
      { slug: 'chase', name: 'Second', deleted_at: '2026-03-02T12:00:00.000Z', reason: 'deleted' },
      { slug: 'chase', name: 'First', deleted_at: '2026-03-01T12:00:00.000Z', reason: 'deleted' },
    ]);
    const restored = await s.restore('chase');
    expect(restored.frontmatter.name).toBe('Second');
    expect(s.list().map((e) => e.name)).toEqual(['Second']);
    expect(s.search('chase overdue invoices').map((m) => m.slug)).toEqual(['chase']);
    expect(await codeOf(s.restore('nothing-here'))).toMatch(/^not_found/);
    expect((await s.listDeleted()).map((d) => d.name)).toEqual(['First']);
  });

  it('keeps two deletions in the same millisecond apart', async () => {
    const s = await open();
    await s.upsert({ slug: 'twice', frontmatter: frontmatter({ name: 'One' }), body: '' });
    await s.remove('twice');
    await s.upsert({ slug: 'twice', frontmatter: frontmatter({ name: 'Two' }), body: '' });
    await s.remove('twice');
    expect((await readdir(join(home.root, '.deleted'))).length).toBe(2);
    expect((await s.restore('twice')).frontmatter.name).toBe('Two');
  });
});

describe('loading', () => {
  it('skips broken files, lists them as problems and loads the rest', async () => {
    await mkdir(home.root, { recursive: true });
    await writeSkillFile(home.root, 'good', 'Good skill');
    await writeFile(join(home.root, 'broken.md'), '---\nname: [unclosed\n---\n');
    await writeFile(join(home.root, 'invalid.md'), skillText(['type: skill', 'name: X', 'status: finished']));
    await writeFile(join(home.root, 'Bad Name.md'), skillText(['type: skill', 'name: X', 'status: complete']));
    await writeFile(join(home.root, '.hidden.md'), 'whatever');
    await writeFile(join(home.root, 'notes.txt'), 'not a skill');
    await mkdir(join(home.root, '.deleted'));
    await writeSkillFile(join(home.root, '.deleted'), 'gone--2026-01-01T00-00-00.000Z', 'Gone');
    const s = await open();
    expect(s.list().map((e) => e.slug)).toEqual(['good']);
    expect(s.problems()).toEqual([
      { file: 'Bad Name.md', message: 'file name is not a valid slug' },
      // The flow collection opened on line 2, the last line of the YAML, is never closed.
      { file: 'broken.md', message: expect.stringContaining('front matter is not valid YAML') as string, line: 2 },
      { file: 'invalid.md', message: 'status must be one of draft, complete, deprecated', line: 4 },
    ]);
  });

  it('with sweepTemps, removes the temp files of interrupted writes from the listing it loads, and only then', async () => {
    await mkdir(home.root, { recursive: true });
    await writeSkillFile(home.root, 'good', 'Good skill');
    await writeFile(join(home.root, 'good.md.2417754183'), 'half written');
    await writeFile(join(home.root, 'backup.txt.1'), 'the user keeps this');
    const kept = await open();
    expect(kept.loadReport.removedTemps).toEqual([]);
    await kept.close();
    expect((await readdir(home.root)).sort()).toEqual(['backup.txt.1', 'good.md', 'good.md.2417754183']);

    const warned: string[] = [];
    const s = await open({ sweepTemps: true, persistIndex: false, log: (level, message) => { if (level === 'warn') warned.push(message); } });
    expect(s.loadReport.removedTemps).toEqual(['good.md.2417754183']);
    expect(warned).toEqual(['removed temp files of writes cut short by an earlier stop']);
    expect((await readdir(home.root)).sort()).toEqual(['backup.txt.1', 'good.md']);
    expect(s.list().map((e) => e.slug)).toEqual(['good']);
    expect(s.problems()).toEqual([]);
  });

  it('announces changes to listeners and survives a throwing listener', async () => {
    const seen: SkillChangeEvent[] = [];
    const errors: string[] = [];
    const s = await open({ onChange: () => { throw new Error('boom'); }, log: (level, m) => { if (level === 'error') errors.push(m); } });
    s.subscribe((event) => seen.push(event));
    await s.upsert({ slug: 'x', frontmatter: frontmatter(), body: '' });
    await s.remove('x');
    await s.restore('x');
    expect(seen.map((e) => e.type)).toEqual(['upsert', 'remove', 'restore']);
    expect(errors.length).toBe(3);
  });

  it('validates its options at creation', async () => {
    await expect(createSkillStore({ root: 'relative', stateDir: home.stateDir })).rejects.toThrow(OrgError);
  });
});
