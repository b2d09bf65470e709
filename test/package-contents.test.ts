/**
 * What `npm pack` would publish: the built CLI, server and web UI, the bundled skills and
 * templates, and no test code (no test files, test helpers, contract suites or test
 * runtimes). Reads the file list of `npm pack --dry-run` over the current build
 * (`npm test` builds first, from a clean `dist/`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from './helpers/child.js';

const run = promisify(execFile);

/** Names that only test code has. */
const TEST_CODE = /(^|\/)(test|tests|__tests__|helpers?|fixtures?|support)\/|\.test\.|\.spec\.|test-helpers|test-support|contract\.|scripted/;

describe('the published package', () => {
  let files: string[];
  beforeAll(async () => {
    ensureBuilt();
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
    files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]!.files.map((file) => file.path);
  });

  it('holds the CLI, the server, the web UI, skills and templates', () => {
    expect(files).toEqual(expect.arrayContaining(['bin/org.js', 'dist/bundle/main.js', 'dist/cli/main.js', 'dist/server/index.js', 'dist/web/index.html', 'templates/skill.md', 'package.json']));
    expect(files.some((file) => file.startsWith('skills/') && file.endsWith('.md'))).toBe(true);
    expect(files.some((file) => file.startsWith('dist/core/runtimes/') && file.endsWith('.js'))).toBe(true);
  });

  it('ships no test code', () => {
    expect(files.filter((file) => TEST_CODE.test(file))).toEqual([]);
  });
});
