/**
 * Runners of `org skills new|edit|lint`: writing skills. Files are edited in place when the
 * server's home is on this machine (the server's watcher picks changes up within a
 * second), else they round-trip through the API.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { conflict, invalid, isOrgError } from '../../core/errors.js';
import { addTriggers, isValidSlug, parseSkillText } from '../../core/skills/index.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { editSkill, homeOf, localSkillFile } from '../skills/edit.js';
import { formatLint, lintFiles, lintSkillText, skillFilesOf, type LintMessage } from '../skills/lint.js';
import { fillTemplate, skillTemplate } from '../templates.js';
import { namedScope, writeScope, type SkillFlags } from '../scope.js';

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function report(deps: CommandDeps, messages: LintMessage[]): void {
  for (const message of messages) deps.output.err(formatLint(message));
}

/** Arguments of `org skills new`. */
export interface SkillsNewArgs extends SkillFlags {
  slug: string;
  home?: string;
  /** false: do not open the editor (commander's `--no-edit`). */
  edit?: boolean;
  /** Write through the API even when a local skills/ folder exists. */
  remote?: boolean;
  /** Example requests to start the skill's `triggers` with (a skill started from a gap). */
  triggers?: string[];
}

const NEW_DEFAULTS = () => ({ learned_by: 'user', learned_at: new Date().toISOString(), category: 'general', difficulty: 'medium' }) as const;

/**
 * Opens `draft` in the editor until its text is a valid skill (as `git commit` and
 * `kubectl edit` do): findings are shown after each round; with errors, a person is
 * asked whether to edit again. Resolves with the valid text; throws (nothing saved,
 * the text kept in `draft`) when abandoned or when no one is there to ask.
 */
async function editUntilValid(slug: string, draft: string, shownAs: string, deps: CommandDeps): Promise<string> {
  for (;;) {
    await deps.openEditor(draft);
    const text = await readFile(draft, 'utf8');
    const messages = lintSkillText(`${slug}.md`, text).map((m) => ({ ...m, file: shownAs }));
    report(deps, messages);
    if (!messages.some((m) => m.severity === 'error')) return text;
    const kept = `nothing was saved; your text is in ${draft}`;
    if (!deps.interactive) throw invalid(`the skill is not valid (${messages.filter((m) => m.severity === 'error').length} error(s) above); ${kept}`);
    const answer = await deps.prompt('The skill is not valid yet. Edit it again? [Y/n] ');
    if (/^n/i.test(answer)) throw invalid(`abandoned: ${kept}`);
  }
}

/**
 * Scaffolds a skill from the template and opens it in the editor until it is valid,
 * then writes it to the home's skills/ (or saves it through the API). Nothing invalid is
 * ever stored: an abandoned edit exits non-zero and keeps the text in a temp file.
 */
export async function runSkillsNew(args: SkillsNewArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  if (!isValidSlug(args.slug)) throw invalid(`"${args.slug}" is not a slug: use lowercase words joined by hyphens, e.g. plan-offsite`);
  const home = homeOf(args.home, deps.cwd, deps.env);
  const skillsDir = join(home, 'skills');
  const filled = fillTemplate(await skillTemplate(skillsDir), args.slug);
  const template = args.triggers?.length ? addTriggers(filled, args.triggers) : filled;
  const local = !args.remote && (await isDir(skillsDir));
  const file = join(skillsDir, `${args.slug}.md`);
  const shown = relative(deps.cwd, file) || file;
  const exists = () => conflict(`${local ? shown : `the skill ${args.slug}`} already exists: edit it with  org skills edit ${args.slug}`);

  const client = local ? undefined : await connect(args, deps);
  if (local && (await localSkillFile(home, args.slug))) throw exists();
  if (client) {
    try {
      await client.getSkill(args.slug, await namedScope(client, args.structure, deps.env));
      throw exists();
    } catch (error) {
      if (!isOrgError(error) || error.code !== 'not_found') throw error;
    }
  }

  const dir = await mkdtemp(join(tmpdir(), 'org-new-'));
  const draft = join(dir, `${args.slug}.md`);
  await writeFile(draft, template);
  const text = args.edit === false ? template : await editUntilValid(args.slug, draft, local ? shown : `${args.slug}.md`, deps);

  if (local) {
    try {
      await writeFile(file, text, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw exists();
      throw error;
    }
    await rm(dir, { recursive: true, force: true });
    deps.output.out(`created ${shown} (a draft until its status is complete)`);
    return 0;
  }
  const parsed = parseSkillText(args.slug, text, NEW_DEFAULTS());
  if (!parsed.ok) throw invalid(`the new skill is not valid (${parsed.message}); nothing was saved, your text is in ${draft}`);
  const structureId = parsed.skill.frontmatter.structure_id ?? (await writeScope(client!, args.structure, deps.env));
  const { structure_id: _scope, ...frontmatter } = parsed.skill.frontmatter;
  // Create-only: a skill someone saved under this slug while the editor was open is never replaced.
  const skill = await client!.createSkill({ structure_id: structureId, slug: args.slug, frontmatter, body: parsed.skill.body }).catch((error: unknown) => {
    if (isOrgError(error) && error.code === 'already_exists') {
      throw conflict(`the skill ${args.slug} was created by someone else meanwhile; nothing was saved, your text is in ${draft} (see theirs with  org skills show ${args.slug})`);
    }
    throw error;
  });
  await rm(dir, { recursive: true, force: true });
  deps.output.out(`created ${skill.slug} on ${client!.url} (${skill.frontmatter.status}, ${skill.steps.length} step(s))`);
  return 0;
}

/** Arguments of `org skills edit`. */
export interface SkillsEditArgs extends SkillFlags {
  slug: string;
  home?: string;
  remote?: boolean;
}

/** Opens a skill in the editor: the local file, or a copy saved back through the API. */
export async function runSkillsEdit(args: SkillsEditArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const home = homeOf(args.home, deps.cwd, deps.env);
  const local = args.remote ? undefined : await localSkillFile(home, args.slug);
  const client = local ? undefined : await connect(args, deps);
  const outcome = await editSkill(args.slug, {
    // Only reached without a local file, so a client exists then.
    client: client!,
    ...(local ? { home } : {}),
    openEditor: deps.openEditor,
    structureId: () => writeScope(client!, args.structure, deps.env),
  });
  if (outcome.kind === 'local') {
    report(deps, outcome.messages.map((m) => ({ ...m, file: relative(deps.cwd, m.file) || m.file })));
    deps.output.out(`edited ${relative(deps.cwd, outcome.file) || outcome.file}`);
    return outcome.messages.some((m) => m.severity === 'error') ? 1 : 0;
  }
  if (outcome.kind === 'unchanged') deps.output.out(`no changes to ${outcome.slug}`);
  else deps.output.out(`saved ${outcome.skill.slug} (${outcome.skill.frontmatter.status}, ${outcome.skill.steps.length} step(s))`);
  return 0;
}

/** Arguments of `org skills lint`. */
export interface SkillsLintArgs {
  paths: string[];
  home?: string;
  strict?: boolean;
  json?: boolean;
}

/** Lints skill files locally; non-zero exit on an error (or a warning with --strict). */
export async function runSkillsLint(args: SkillsLintArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const absolute = args.paths.length ? args.paths.map((p) => resolve(deps.cwd, p)) : [join(homeOf(args.home, deps.cwd, deps.env), 'skills')];
  let files: string[];
  try {
    files = await skillFilesOf(absolute);
  } catch (error) {
    throw invalid(`cannot read ${absolute.join(', ')}: ${(error as Error).message}`);
  }
  const messages = await lintFiles(files, (file) => relative(deps.cwd, file) || file);
  const errors = messages.filter((m) => m.severity === 'error').length;
  const warnings = messages.length - errors;
  if (args.json) printLintJson(deps, files.length, messages);
  else {
    for (const message of messages) deps.output.out(formatLint(message));
    deps.output.out(`${files.length} file(s) checked: ${errors} error(s), ${warnings} warning(s)`);
  }
  return errors > 0 || (args.strict && warnings > 0) ? 1 : 0;
}

function printLintJson(deps: CommandDeps, files: number, messages: LintMessage[]): void {
  deps.output.out(JSON.stringify({ files, messages }, null, 2));
}
