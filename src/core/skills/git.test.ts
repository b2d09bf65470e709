import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, initRepo, requireGit } from '../../../test/helpers/git.js';
import { commitSkillChange, skillHistory } from './git.js';
import { createSkillStore } from './store.js';
import { frontmatter, tempHome, type TempHome } from '../../../test/helpers/skills.js';

let home: TempHome;
beforeEach(async () => {
  home = await tempHome();
  await mkdir(home.root, { recursive: true });
});
afterEach(() => home.cleanup());

describe('git', () => {
  it('is a no-op outside a work tree (and without git)', async () => {
    await writeFile(join(home.root, 'a.md'), 'x');
    expect(await commitSkillChange(home.root, [join(home.root, 'a.md')], 'msg')).toBe(false);
    expect(await skillHistory(home.root, { slug: 'a' })).toEqual([]);
  });

  it('commits every store write with the slug and actor, and lists the history', async (context) => {
    requireGit(context);
    await initRepo(home.home);
    await writeFile(join(home.home, 'unrelated.txt'), 'left alone');
    const store = await createSkillStore({ root: home.root, stateDir: home.stateDir, synonyms: false, commit: true });
    await store.upsert({ slug: 'chase', frontmatter: frontmatter(), body: 'one', actor: 'alice@example.com' });
    await store.upsert({ slug: 'chase', frontmatter: frontmatter({ name: 'Two' }), body: 'two', actor: 'bob@example.com' });
    await store.remove('chase', { actor: 'alice@example.com' });
    await store.restore('chase', { actor: 'carol@example.com' });
    await store.close();

    const history = await skillHistory(home.root, { slug: 'chase' });
    expect(history.map((c) => c.message)).toEqual([
      'skill chase: restore by carol@example.com',
      'skill chase: delete by alice@example.com',
      'skill chase: update by bob@example.com',
      'skill chase: create by alice@example.com',
    ]);
    expect(history[0]).toMatchObject({ author: 'Test <test@example.com>', commit: expect.stringMatching(/^[0-9a-f]{40}$/) as string });
    expect(Number.isNaN(Date.parse(history[0]?.date ?? ''))).toBe(false);
    const stdout = await git(home.home, 'status', '--porcelain');
    expect(stdout).toContain('unrelated.txt');
    expect(stdout).not.toContain('chase');
  });
});
