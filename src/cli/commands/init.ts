/**
 * Runner of `org init [dir]`: scaffolds a home folder — skills/ with a copy of the
 * bundled library and the template, .gitignore, git.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { invalid } from '../../core/errors.js';
import { isInside, locateHome } from '../../core/home-location.js';
import { isSkillFileName, seedBundledSkills, shippedSkills } from '../../core/skills/index.js';
import { withDefaults, type CommandDeps } from '../deps.js';
import { commandLine } from '../quote.js';
import { LOCAL_TEMPLATE_NAME, PACKAGE_DIR, skillTemplate } from '../templates.js';

const exec = promisify(execFile);

/** Arguments of `org init`. */
export interface InitArgs {
  dir?: string;
  /** Skip `git init` (commander's `--no-git`). */
  git?: boolean;
  /** Leave skills/ without the bundled library (commander's `--no-bundled`). */
  bundled?: boolean;
}

async function exists(path: string): Promise<boolean> {
  try {
    await readFile(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EISDIR';
  }
}

/** True when `dir` is inside a git work tree; undefined when git is not installed. */
async function insideGitRepo(dir: string, env: NodeJS.ProcessEnv): Promise<boolean | undefined> {
  try {
    const { stdout } = await exec('git', ['rev-parse', '--is-inside-work-tree'], { cwd: dir, env });
    return stdout.trim() === 'true';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return false;
  }
}

/** Creates what is missing; never overwrites a file. */
export async function runInit(args: InitArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const located = locateHome(args.dir, {}, deps.cwd, PACKAGE_DIR);
  if (located.source === 'flag' && isInside(located.home, PACKAGE_DIR)) {
    throw invalid(`${located.home} is inside the org package (${PACKAGE_DIR}), whose skills/ is the library it ships; name a folder of your own, e.g. org init ~/org`);
  }
  const home = located.home;
  const named = args.dir ?? (located.source === 'user-default' ? home : undefined);
  const skills = join(home, 'skills');
  await mkdir(skills, { recursive: true });
  const say = (line: string) => deps.output.out(line);

  const present = (await readdir(skills)).filter(isSkillFileName);
  if (args.bundled === false) say(`skipped  the bundled skills (--no-bundled)`);
  else if (present.length > 0) say(`kept     skills/ (${present.length} skill file(s) already there)`);
  else {
    const { copied } = await seedBundledSkills(skills, await shippedSkills(PACKAGE_DIR), { force: true });
    say(`created  skills/ with ${copied.length} bundled skills (yours to edit; --no-bundled leaves it empty)`);
  }

  const template = join(skills, LOCAL_TEMPLATE_NAME);
  if (await exists(template)) say(`kept     skills/${LOCAL_TEMPLATE_NAME}`);
  else {
    await writeFile(template, await skillTemplate());
    say(`created  skills/${LOCAL_TEMPLATE_NAME} (the template of org skills new)`);
  }

  const gitignore = join(home, '.gitignore');
  let ignore = '';
  try {
    ignore = await readFile(gitignore, 'utf8');
  } catch {
    // No .gitignore yet.
  }
  if (ignore.split(/\r?\n/).some((line) => ['.org', '.org/', '/.org', '/.org/'].includes(line.trim()))) say('kept     .gitignore');
  else {
    await writeFile(gitignore, `${ignore}${ignore && !ignore.endsWith('\n') ? '\n' : ''}# org service state (users, keys, histories): never commit it\n.org/\n`);
    say(`${ignore ? 'updated' : 'created'}  .gitignore (ignores .org/)`);
  }

  if (args.git !== false) {
    const inside = await insideGitRepo(home, deps.env);
    if (inside === undefined) say('skipped  git init (git is not installed)');
    else if (inside) say('kept     the git repository');
    else {
      await exec('git', ['init', '--quiet'], { cwd: home, env: deps.env });
      say('created  a git repository (git init)');
    }
  }
  say('');
  say(`next: ${named ? `${commandLine('cd', named)} && ` : ''}org serve     then: org skills new my-first-skill`);
  return 0;
}
