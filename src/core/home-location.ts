/**
 * Which folder a command means by "the home" when none is named. API.md §1: `--home`,
 * else `ORG_HOME`, else the current directory — except inside the org package itself,
 * whose `skills/` is the bundled library it ships: a server there would make every draft,
 * API write and broken edit part of what new homes are given. There the default is a home
 * of the user's own, `~/.org`, and the command says so.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve, isAbsolute } from 'node:path';

/** Where the home came from. */
export type HomeSource = 'flag' | 'env' | 'cwd' | 'user-default';

/** The home a command uses, and why. */
export interface HomeLocation {
  home: string;
  source: HomeSource;
  /** With `user-default`: the package folder the command was started in. */
  packageDir?: string;
}

/** The home used when a command starts inside the org package with no home named. */
export function userDefaultHome(): string {
  return join(homedir(), '.org');
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** True when `dir` is `root` or a folder below it (links resolved). */
export function isInside(dir: string, root: string): boolean {
  const rel = relative(real(root), real(dir));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Resolves the home: `named` (a flag) over `ORG_HOME` over the working folder `cwd`, and
 * `~/.org` instead of a working folder inside `packageDir` (the org package).
 */
export function locateHome(named: string | undefined, env: NodeJS.ProcessEnv, cwd: string, packageDir: string | undefined): HomeLocation {
  if (named !== undefined && named !== '') return { home: resolve(cwd, named), source: 'flag' };
  const fromEnv = env.ORG_HOME;
  if (fromEnv !== undefined && fromEnv !== '') return { home: resolve(cwd, fromEnv), source: 'env' };
  if (packageDir !== undefined && isInside(cwd, packageDir)) return { home: userDefaultHome(), source: 'user-default', packageDir };
  return { home: resolve(cwd), source: 'cwd' };
}
