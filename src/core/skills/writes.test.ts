import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrgError } from '../errors.js';
import { createSkillStore, type SkillStore } from './store.js';
import { frontmatter, skillText, tempHome, type TempHome } from '../../../test/helpers/skills.js';

let home: TempHome;
let store: SkillStore | undefined;
let now = new Date('2026-03-01T12:00:00.000Z');

beforeEach(async () => {
  home = await tempHome();
  now = new Date('2026-03-01T12:00:00.000Z');
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  await home.cleanup();
});

async function open(): Promise<SkillStore> {
  store = await createSkillStore({ root: home.root, stateDir: home.stateDir, clock: () => now, synonyms: false });
  return store;
}

async function failure(promise: Promise<unknown>): Promise<OrgError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OrgError) return error;
    throw error;
  }
  throw new Error('expected the write to fail');
}

describe('create-only writes', () => {
  it('creates when the slug is free and refuses with already_exists when it is taken, leaving the file alone', async () => {
    const s = await open();
    const created = await s.upsert({ slug: 'onboard', frontmatter: frontmatter({ name: 'Onboard' }), body: 'v1\n', precondition: { kind: 'absent' } });
    expect(created.created).toBe(true);
    const before = await readFile(join(home.root, 'onboard.md'), 'utf8');

    const error = await failure(s.upsert({ slug: 'onboard', frontmatter: frontmatter({ name: 'Template' }), body: 'template\n', precondition: { kind: 'absent' } }));
    expect(error.code).toBe('already_exists');
    expect(error.status).toBe(409);
    expect(error.extra).toEqual({ slug: 'onboard' });
    expect(await readFile(join(home.root, 'onboard.md'), 'utf8')).toBe(before);
    expect(await s.listDeleted()).toEqual([]);
  });

  it('counts a file that does not parse as taken', async () => {
    const s = await open();
    await writeFile(join(home.root, 'broken.md'), '---\nname: [unclosed\n---\n');
    const error = await failure(s.upsert({ slug: 'broken', frontmatter: frontmatter(), body: '', precondition: { kind: 'absent' } }));
    expect(error.code).toBe('already_exists');
    expect(await readFile(join(home.root, 'broken.md'), 'utf8')).toBe('---\nname: [unclosed\n---\n');
  });
});

describe('replacing a skill', () => {
  it('keeps the replaced text in .deleted/ as a replaced version, listed with its reason', async () => {
    const s = await open();
    await s.upsert({ slug: 'onboard', frontmatter: frontmatter({ name: 'Published playbook', status: 'complete' }), body: 'The real steps.\n' });
    const published = await readFile(join(home.root, 'onboard.md'), 'utf8');
    now = new Date('2026-03-02T09:30:00.000Z');
    await s.upsert({ slug: 'onboard', frontmatter: frontmatter({ name: 'Template', status: 'draft' }), body: 'template\n' });

    expect(await readdir(join(home.root, '.deleted'))).toEqual(['onboard--2026-03-02T09-30-00.000Z.replaced.md']);
    expect(await readFile(join(home.root, '.deleted', 'onboard--2026-03-02T09-30-00.000Z.replaced.md'), 'utf8')).toBe(published);
    expect(await s.listDeleted()).toEqual([{ slug: 'onboard', name: 'Published playbook', deleted_at: '2026-03-02T09:30:00.000Z', reason: 'replaced' }]);
    // The live skill is the new one; once it is deleted too, restore brings back the newest (the deleted one).
    now = new Date('2026-03-03T09:30:00.000Z');
    await s.remove('onboard');
    expect((await s.listDeleted()).map((entry) => entry.reason)).toEqual(['deleted', 'replaced']);
    expect((await s.restore('onboard')).frontmatter.name).toBe('Template');
  });

  it('writes nothing and keeps nothing when the text would not change', async () => {
    const s = await open();
    const input = { slug: 'same', frontmatter: frontmatter(), body: 'Body.\n' };
    await s.upsert(input);
    const again = await s.upsert(input);
    expect(again.created).toBe(false);
    expect(again.skill).toEqual(await s.get('same'));
    expect(await s.listDeleted()).toEqual([]);
  });

  it('keeps the author’s YAML formatting for the members that did not change', async () => {
    const authored = skillText([
      '# Reviewed by finance',
      'type: skill',
      "name: 'Chase an overdue invoice'",
      'category: finance',
      'difficulty: low',
      'tags: [invoice, overdue]',
      'status: draft',
      'summary: Collect money owed.',
      'learned_by: user',
      'learned_at: 2026-01-01T00:00:00.000Z',
      'tool_url: null',
    ]);
    const s = await open();
    await writeFile(join(home.root, 'chase.md'), authored);
    const skill = (await s.get('chase'))!;
    await s.upsert({ slug: 'chase', frontmatter: { ...skill.frontmatter, status: 'complete' }, body: skill.body });
    const text = await readFile(join(home.root, 'chase.md'), 'utf8');
    expect(text).toBe(authored.replace('status: draft', 'status: complete'));
    expect((await s.get('chase'))!.frontmatter).toEqual({ ...skill.frontmatter, status: 'complete' });
  });
});
