/**
 * A library shared through a git remote, on real git: two stores on two clones of one
 * bare repository (two instances' homes). A write through one is pushed and reaches the
 * other by `pull`; a write that conflicts with one pushed meanwhile is refused with 409,
 * the remote's version stays live on both and the refused one is kept in the deleted
 * area; an unreachable remote refuses a write with 503 and leaves nothing behind.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { frontmatter, tempHome, type TempHome } from '../../../test/helpers/skills.js';
import { isOrgError } from '../errors.js';
import { createSkillRemote } from './remote.js';
import { createSkillStore, type SkillStore } from './store.js';

const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd })).stdout;

let home: TempHome;
let bare: string;
const stores: SkillStore[] = [];

async function instance(name: string): Promise<{ store: SkillStore; root: string }> {
  const root = join(home.home, name, 'skills');
  const stateDir = join(home.home, name, '.org');
  const remote = createSkillRemote({ root, url: bare });
  const store = await createSkillStore({ root, stateDir, remote, persistIndex: false, synonyms: false });
  stores.push(store);
  return { store, root };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return isOrgError(error) ? error.code : String(error);
  }
}

beforeEach(async () => {
  home = await tempHome('org-remote-');
  bare = join(home.home, 'library.git');
  await mkdir(bare);
  await git(bare, 'init', '--bare', '--quiet', '--initial-branch=main');
});

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await home.cleanup();
});

describe('a skill library shared through a git remote', () => {
  it('a write through one instance is pushed and reaches the other by pull, searchable there', async () => {
    const a = await instance('a');
    const b = await instance('b');
    await a.store.upsert({ slug: 'pay-supplier', frontmatter: frontmatter({ name: 'Pay a supplier invoice', tags: ['supplier'] }), body: '## [a] Step 1: Pay\n', actor: 'ann@example.com' });
    expect(await git(bare, 'log', '--format=%s', 'main')).toContain('skill pay-supplier: create by ann@example.com');
    expect(b.store.search('supplier invoice')).toEqual([]);

    expect(await b.store.pull()).toBe(1);
    expect(b.store.search('supplier invoice').map((match) => match.slug)).toEqual(['pay-supplier']);
    expect((await b.store.get('pay-supplier'))?.frontmatter.name).toBe('Pay a supplier invoice');
    expect(await b.store.pull()).toBe(0);

    // A push made outside org (a person's clone) is pulled the same way.
    const person = join(home.home, 'person');
    await git(home.home, 'clone', '--quiet', bare, person);
    await git(person, 'rm', '--quiet', 'pay-supplier.md');
    await git(person, '-c', 'user.email=p@example.com', '-c', 'user.name=P', 'commit', '--quiet', '-m', 'retire pay-supplier');
    await git(person, 'push', '--quiet', 'origin', 'HEAD:main');
    expect(await a.store.pull()).toBe(1);
    expect(a.store.list().map((entry) => entry.slug)).toEqual([]);
  });

  it('a write that conflicts with one pushed meanwhile is refused with 409; the remote version is live and the refused one kept', async () => {
    const a = await instance('a');
    const b = await instance('b');
    await a.store.upsert({ slug: 'close-account', frontmatter: frontmatter({ name: 'Close an account' }), body: '## [a] Step 1: First version\n' });
    await b.store.pull();

    await a.store.upsert({ slug: 'close-account', frontmatter: frontmatter({ name: 'Close an account' }), body: '## [a] Step 1: Version of A\n' });
    // B has not pulled: its write is decided on the old version and the push is refused.
    const refused = b.store.upsert({ slug: 'close-account', frontmatter: frontmatter({ name: 'Close an account' }), body: '## [a] Step 1: Version of B\n' });
    expect(await codeOf(refused)).toBe('conflict');

    const onB = await b.store.get('close-account');
    expect(onB?.steps.map((step) => step.title)).toEqual(['Version of A']);
    expect(await readFile(join(b.root, 'close-account.md'), 'utf8')).toContain('Version of A');
    const deleted = (await git(bare, 'ls-tree', '--name-only', 'main', '.deleted/')).split('\n').filter(Boolean);
    const texts = await Promise.all(deleted.filter((path) => path.startsWith('.deleted/close-account--')).map((path) => git(bare, 'show', `main:${path}`)));
    expect(texts.filter((text) => text.includes('Version of B'))).toHaveLength(1);
  });

  it('an unreachable remote refuses a write with 503 and leaves the library as it was', async () => {
    const a = await instance('a');
    await rename(bare, `${bare}.away`);
    expect(await codeOf(a.store.upsert({ slug: 'offline', frontmatter: frontmatter(), body: '## [a] Step 1: Try\n' }))).toBe('unavailable');
    expect(existsSync(join(a.root, 'offline.md'))).toBe(false);
    expect(a.store.list()).toEqual([]);
    expect(await git(a.root, 'status', '--porcelain')).toBe('');
  });

  it('a folder of files of its own is not silently turned into a clone', async () => {
    const root = join(home.home, 'c', 'skills');
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'mine.md'), 'not pushed anywhere');
    const remote = createSkillRemote({ root, url: bare });
    await expect(createSkillStore({ root, stateDir: join(home.home, 'c', '.org'), remote, persistIndex: false })).rejects.toThrow(/--skills-remote needs .* to be empty or a clone/);
  });
});
