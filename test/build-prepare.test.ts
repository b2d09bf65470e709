/**
 * npm's `prepare` builds only what is not built yet (issue 31.6): `npm install` builds,
 * and the `npm link` (or `npx`) that follows starts at once from that build instead of
 * spending most of a minute rebuilding it, silently. The real scripts run in a copy of
 * the package layout whose "build" only counts how often it ran, and in the repository,
 * where a finished build must be taken as it is.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/child.js';

const run = promisify(execFile);

/** The build's own module (plain JavaScript, run by npm without a compile step). */
const { BUILD_OUTPUTS, isUpToDate } = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'build-stamp.mjs')).href)) as {
  BUILD_OUTPUTS: string[];
  isUpToDate(root: string): boolean;
};

/** Runs `npm run prepare` in `dir` without the environment of an enclosing npm run. */
async function prepare(dir: string): Promise<string> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('npm_')) env[name] = value;
  const { stdout } = await run('npm', ['run', '--silent', 'prepare'], { cwd: dir, env });
  return stdout;
}

/** A package whose build writes the outputs and the stamp, and appends a line to builds.log. */
async function fakePackage(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'org-prepare-'));
  await mkdir(join(dir, 'scripts'));
  await mkdir(join(dir, 'src'));
  for (const name of ['prepare.mjs', 'build-stamp.mjs']) await copyFile(join(REPO_ROOT, 'scripts', name), join(dir, 'scripts', name));
  const outputs = BUILD_OUTPUTS.map((file) => JSON.stringify(file)).join(',');
  await writeFile(
    join(dir, 'scripts', 'fake-build.mjs'),
    `import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';\nimport { dirname } from 'node:path';\nfor (const file of [${outputs}]) { mkdirSync(dirname(file), { recursive: true }); writeFileSync(file, 'built'); }\nappendFileSync('builds.log', 'build\\n');\n`,
  );
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'fake-org', private: true, scripts: { build: 'node scripts/fake-build.mjs && node scripts/prepare.mjs --stamp', prepare: 'node scripts/prepare.mjs' } }));
  await writeFile(join(dir, 'src', 'main.ts'), 'export const a = 1;\n');
  return dir;
}

const builds = async (dir: string) => (await readFile(join(dir, 'builds.log'), 'utf8')).split('\n').filter(Boolean).length;

describe('prepare', () => {
  it('builds once, then takes the build as it is until a source changes', { timeout: 60_000 }, async () => {
    const dir = await fakePackage();
    await prepare(dir);
    expect(await builds(dir)).toBe(1);

    expect(await prepare(dir)).toContain('org: dist/ is already built from these sources');
    expect(await builds(dir)).toBe(1);

    await writeFile(join(dir, 'src', 'main.ts'), 'export const a = 2;\n');
    await prepare(dir);
    expect(await builds(dir)).toBe(2);

    // A build cut short (an output missing) is not believed.
    await writeFile(join(dir, 'dist', 'bundle', 'main.js'), '');
    await run(process.execPath, ['-e', `require('node:fs').rmSync(${JSON.stringify(join(dir, 'dist', 'web', 'index.html'))})`]);
    await prepare(dir);
    expect(await builds(dir)).toBe(3);
  });

  it('in the repository, after npm run build, starts from the build instead of rebuilding it', async (context) => {
    if (!isUpToDate(REPO_ROOT)) context.skip('dist/ is not a build of the current sources (npm run build makes one)');
    const before = (await stat(join(REPO_ROOT, 'dist', 'bundle', 'main.js'))).mtimeMs;
    expect(await prepare(REPO_ROOT)).toContain('org: dist/ is already built from these sources');
    expect((await stat(join(REPO_ROOT, 'dist', 'bundle', 'main.js'))).mtimeMs).toBe(before);
  });
});
