/**
 * Git for the tests that need it. Each such test makes its own repository in a temp
 * folder ({@link initRepo}), with a local identity, so no global git configuration
 * matters. Git itself comes with the machine; where it is missing those tests, and only
 * those, are skipped with {@link GIT_MISSING} as the reason.
 */
import { execFile, execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'vitest';

const run = promisify(execFile);

function probe(): string | undefined {
  try {
    execFileSync('git', ['--version'], { stdio: 'pipe' });
    return undefined;
  } catch {
    return 'git is not installed on this machine: the tests of git history are skipped';
  }
}

/** Why the git tests cannot run here; undefined when git is installed. */
export const GIT_MISSING = probe();

/** Skips the current test, saying why, when git is missing. */
export function requireGit(context: TestContext): void {
  if (GIT_MISSING) context.skip(GIT_MISSING);
}

/** Runs git in `cwd` and returns its standard output. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } })).stdout;
}

/** Makes `dir` a git repository with a local test identity and `.org/` ignored. */
export async function initRepo(dir: string): Promise<void> {
  await git(dir, 'init', '-q');
  await git(dir, 'config', 'user.email', 'test@example.com');
  await git(dir, 'config', 'user.name', 'Test');
  await git(dir, 'config', 'commit.gpgsign', 'false');
  await writeFile(join(dir, '.gitignore'), '.org/\n');
}
