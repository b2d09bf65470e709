/**
 * Git integration of the skill library: commit a write of skill files, and read the
 * history of one skill's file. Uses the `git` binary through `execFile` (no shell); when
 * git is absent or the folder is not in a work tree, commits are skipped and histories
 * are empty.
 */
import { execFile } from 'node:child_process';
import { relative } from 'node:path';
import { promisify } from 'node:util';
import { relativeFile, type SkillKey } from './skill-key.js';
import type { SkillCommit } from './types.js';

const run = promisify(execFile);

/** Runs git in `cwd` (no shell, no prompt) and returns its standard output. */
export async function runGit(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await run('git', args, {
    cwd,
    maxBuffer: 16 * 1024 * 1024,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...env },
  });
  return stdout;
}

/** The top of the work tree holding `dir`, or undefined (no git, not a repository). */
export async function workTreeRoot(dir: string): Promise<string | undefined> {
  try {
    return (await runGit(dir, ['rev-parse', '--show-toplevel'])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stages and commits `files` (absolute paths under `root`; added, changed or deleted)
 * and nothing else. Files git ignores are left out. Returns false when `root` is not in
 * a work tree or there was nothing to commit.
 *
 * @example await commitSkillChange(root, [join(root, 'invoice.md')], 'skill invoice: update by alice@example.com')
 */
export async function commitSkillChange(root: string, files: string[], message: string): Promise<boolean> {
  const top = await workTreeRoot(root);
  if (!top) return false;
  const paths: string[] = [];
  for (const file of files) {
    const path = relative(top, file);
    if (await isIgnored(top, path)) continue;
    paths.push(path);
  }
  if (paths.length === 0) return false;
  await runGit(top, ['add', '-A', '--', ...paths]);
  const staged = (await runGit(top, ['diff', '--cached', '--name-only', '--', ...paths])).trim();
  if (staged === '') return false;
  await runGit(top, ['commit', '--quiet', '--no-verify', '-m', message, '--', ...paths], await identityEnv(top));
  return true;
}

/**
 * Commits that touched a skill's file (`<root>/[<structure_id>/]<slug>.md`), newest
 * first, following it across a move (the layout change of a structure's skills); []
 * without git or repository.
 */
export async function skillHistory(root: string, key: SkillKey): Promise<SkillCommit[]> {
  const top = await workTreeRoot(root);
  if (!top) return [];
  const path = relative(top, `${root}/${relativeFile(key)}`);
  let out: string;
  try {
    out = await runGit(top, ['log', '--follow', '--format=%H%x1f%an <%ae>%x1f%aI%x1f%s%x1e', '--', path]);
  } catch {
    return [];
  }
  return out
    .split('\x1e')
    .map((record) => record.trim())
    .filter(Boolean)
    .map((record) => {
      const [commit = '', author = '', date = '', message = ''] = record.split('\x1f');
      return { commit, author, date: new Date(date).toISOString(), message };
    });
}

async function isIgnored(top: string, path: string): Promise<boolean> {
  try {
    await runGit(top, ['check-ignore', '-q', '--', path]);
    return true;
  } catch {
    return false;
  }
}

/** A fallback identity when the repository has none configured, so the commit can be made. */
export async function identityEnv(top: string): Promise<NodeJS.ProcessEnv> {
  try {
    await runGit(top, ['config', 'user.email']);
    return {};
  } catch {
    return {
      GIT_AUTHOR_NAME: 'org',
      GIT_AUTHOR_EMAIL: 'org@localhost',
      GIT_COMMITTER_NAME: 'org',
      GIT_COMMITTER_EMAIL: 'org@localhost',
    };
  }
}
