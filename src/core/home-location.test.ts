/**
 * The default home (API.md §1, issue 31.1): the working folder, except inside the org
 * package, whose skills/ is the library it ships; a named home always wins.
 */
import { mkdir, mkdtemp, symlink } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInside, locateHome } from './home-location.js';

describe('locateHome', () => {
  it('inside the org package with no home named: ~/.org, saying which package folder it avoided', async () => {
    const pkg = await mkdtemp(join(tmpdir(), 'org-pkg-'));
    await mkdir(join(pkg, 'skills'));
    expect(locateHome(undefined, {}, pkg, pkg)).toEqual({ home: join(homedir(), '.org'), source: 'user-default', packageDir: pkg });
    expect(locateHome(undefined, {}, join(pkg, 'skills'), pkg).source).toBe('user-default');
    // Through a link to the package, too.
    const link = join(await mkdtemp(join(tmpdir(), 'org-link-')), 'org');
    await symlink(pkg, link);
    expect(locateHome(undefined, {}, link, pkg).source).toBe('user-default');
  });

  it('elsewhere: the working folder; a flag or ORG_HOME always wins, even inside the package', async () => {
    const pkg = await mkdtemp(join(tmpdir(), 'org-pkg-'));
    const work = await mkdtemp(join(tmpdir(), 'org-work-'));
    expect(locateHome(undefined, {}, work, pkg)).toEqual({ home: work, source: 'cwd' });
    expect(locateHome(undefined, { ORG_HOME: 'acme' }, pkg, pkg)).toEqual({ home: join(pkg, 'acme'), source: 'env' });
    expect(locateHome('.', { ORG_HOME: '/elsewhere' }, pkg, pkg)).toEqual({ home: pkg, source: 'flag' });
    expect(locateHome(undefined, {}, work, undefined)).toEqual({ home: work, source: 'cwd' });
  });

  it('isInside: the folder itself and folders below, not siblings that share a prefix', async () => {
    const root = await mkdtemp(join(tmpdir(), 'org-root-'));
    expect(isInside(root, root)).toBe(true);
    expect(isInside(join(root, 'a', 'b'), root)).toBe(true);
    expect(isInside(`${root}-sibling`, root)).toBe(false);
    expect(isInside(tmpdir(), root)).toBe(false);
  });
});
