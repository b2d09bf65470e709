/**
 * The README's install command gives a working `org` on the PATH (issue 31.2): the package
 * as `npm pack` publishes it, `npm link`ed into a global folder of its own (a temporary
 * npm prefix, so the machine's is untouched), answers `org --version` by its bare name
 * from that folder's `bin/` and prepares a home with `org init`. The dependencies are the
 * checkout's own (hard-linked into the unpacked package), so nothing is fetched.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from './helpers/child.js';

const run = promisify(execFile);

/** The environment of a child without an enclosing npm run's settings (they would name another prefix). */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name) && !name.startsWith('ORG_')) env[name] = value;
  return { ...env, ...extra };
}

describe('npm link puts org on the PATH', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('the packed package, linked into an npm prefix, runs as `org` from its bin/: --version and init', { timeout: 60_000 }, async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'org-readme-install-'));
    const prefix = join(dir, 'prefix');
    const npm = (args: string[], cwd: string) => run('npm', [...args, '--offline', '--no-audit', '--no-fund'], { cwd, env: cleanEnv({ npm_config_prefix: prefix }), maxBuffer: 16 * 1024 * 1024 });

    // What npm would publish (the build is there already: no prepare), unpacked as npm unpacks it.
    const { stdout: packed } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], REPO_ROOT);
    const [{ filename }] = JSON.parse(packed) as [{ filename: string }];
    await run('tar', ['xzf', join(dir, filename), '-C', dir]);
    const pkg = join(dir, 'package');
    await run('cp', ['-al', join(REPO_ROOT, 'node_modules'), join(pkg, 'node_modules')]);

    // The README's second half: npm link, here into the temporary global folder.
    await npm(['link', '--ignore-scripts'], pkg);
    expect(await readdir(join(prefix, 'bin'))).toContain('org');

    // `org` by its bare name, found on the PATH as a shell finds it, outside the checkout.
    const env = cleanEnv({ PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, ORG_CONFIG_DIR: join(dir, 'config') });
    const version = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const { stdout: shown } = await run('org', ['--version'], { cwd: dir, env });
    expect(shown.trim()).toBe(version.version);
    const home = join(dir, 'home');
    const { stdout: initialised } = await run('org', ['init', home], { cwd: dir, env });
    const bundled = (JSON.parse(await readFile(join(REPO_ROOT, 'dist', 'bundled-skills.json'), 'utf8')) as { skills: unknown[] }).skills;
    expect(initialised).toContain(`created  skills/ with ${bundled.length} bundled skills`);
    expect(initialised).toContain(`next: cd ${home} && org serve`);
    expect((await readdir(join(home, 'skills'))).filter((name) => name.endsWith('.md') && !name.startsWith('.'))).toHaveLength(bundled.length);
  });
});
