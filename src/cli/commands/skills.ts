/**
 * `org skills list|show|search|rm|restore|history|deleted`: reading and curating the
 * skill library through the API. Authoring (`new`, `edit`, `lint`) is in skills-author.ts.
 */
import type { Command } from 'commander';
import type { OrgClient } from '../../client/index.js';
import type { SkillStatus } from '../../client/types.js';
import { invalid, isOrgError } from '../../core/errors.js';
import { SKILL_STATUSES } from '../../core/skills/types.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printTable } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import { candidateLines, describeCandidate } from '../skills/why.js';
import { findStructure } from '../resolve.js';
import { examples, positiveInt, withConnection, withStructure, type CommandContext } from './common.js';
import { registerSkillAuthoring } from './skills-author.js';
import { registerSkillTransfer } from './skills-transfer.js';
import { registerSkillGaps } from './skills-gaps.js';

/** Flags shared by the skills commands. */
export interface SkillFlags extends ConnectionFlags {
  structure?: string;
  json?: boolean;
}

/**
 * The structure a skills command works in, or undefined when the caller has none and
 * the server may not need one (the administrator).
 */
export async function skillScope(client: OrgClient, ref: string | undefined, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    return (await findStructure(client, ref, env)).id;
  } catch (error) {
    if (!ref && isOrgError(error) && error.code === 'not_found') return undefined;
    throw error;
  }
}

/** The structure a write goes through (required). */
export async function writeScope(client: OrgClient, ref: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  return (await findStructure(client, ref, env)).id;
}

function parseStatuses(raw: string | undefined): SkillStatus[] | undefined {
  if (!raw) return undefined;
  const statuses = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const status of statuses) {
    if (!(SKILL_STATUSES as readonly string[]).includes(status)) throw invalid(`--status takes ${SKILL_STATUSES.join(', ')} (comma-separated), got "${status}"`);
  }
  return statuses as SkillStatus[];
}

/** Arguments of `org skills list`. */
export interface SkillsListArgs extends SkillFlags {
  status?: string;
  category?: string;
  tag?: string;
}

/** Lists the skills a structure's agents can use. */
export async function runSkillsList(args: SkillsListArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structureId = await skillScope(client, args.structure, deps.env);
  const status = parseStatuses(args.status);
  const { skills } = await client.listSkills({
    ...(structureId ? { structure_id: structureId } : {}),
    ...(status ? { status } : {}),
    ...(args.category ? { category: args.category } : {}),
    ...(args.tag ? { tag: args.tag } : {}),
  });
  if (args.json) printJson(deps.output, skills);
  else
    printTable(
      deps.output,
      skills,
      [
        { header: 'slug', value: (s) => s.slug },
        { header: 'status', value: (s) => s.status },
        { header: 'category', value: (s) => s.category },
        { header: 'name', value: (s) => s.name, max: 60 },
      ],
      'no skills (write one with: org skills new SLUG)',
    );
  return 0;
}

/** Arguments of `org skills show`. */
export interface SkillsShowArgs extends SkillFlags {
  slug: string;
  raw?: boolean;
  width?: number;
}

/** Shows a skill: its front matter in brief, then the body rendered for the terminal. */
export async function runSkillsShow(args: SkillsShowArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const skill = await client.getSkill(args.slug);
  if (args.json) {
    printJson(deps.output, skill);
    return 0;
  }
  if (args.raw) {
    deps.write(skill.body);
    return 0;
  }
  const fm = skill.frontmatter;
  const out = (line: string) => deps.output.out(line);
  out(`${fm.name}  (${skill.slug})`);
  out(`status ${fm.status} · ${fm.category} · difficulty ${fm.difficulty}${fm.tags.length ? ` · tags ${fm.tags.join(', ')}` : ''}`);
  out(`learned by ${fm.learned_by} at ${fm.learned_at}${fm.tool_url ? ` · tool ${fm.tool_url}` : ''}${fm.structure_id ? ` · structure ${fm.structure_id}` : ''}`);
  if (fm.summary) out(fm.summary);
  out('');
  const width = args.width ?? Math.min(deps.stdout.columns ?? 80, 100);
  for (const line of renderMarkdown(skill.body, width).split('\n')) out(line);
  return 0;
}

/** Arguments of `org skills search`. */
export interface SkillsSearchArgs extends SkillFlags {
  query: string;
  limit?: number;
  /** Explain why these skills were (or were not) matched. */
  why?: string[];
  /** List every candidate considered and why it was kept or cut. */
  explain?: boolean;
}

/** Searches as an agent of the structure would: ranked complete skills with score and reason (and why). */
export async function runSkillsSearch(args: SkillsSearchArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structureId = await skillScope(client, args.structure, deps.env);
  const { matches, explain } = await client.searchSkills(args.query, {
    ...(structureId ? { structure_id: structureId } : {}),
    ...(args.limit ? { limit: args.limit } : {}),
    ...(args.explain ? { explain: true } : {}),
    ...(args.why?.length ? { why: args.why } : {}),
  });
  if (args.json) {
    printJson(deps.output, explain ? { matches, explain } : matches);
    return 0;
  }
  if (matches.length === 0) deps.output.out(`no complete skill matches "${args.query}"`);
  matches.forEach((match, i) => {
    deps.output.out(`${i + 1}. ${match.slug}  score ${match.score.toFixed(2)}`);
    deps.output.out(`   ${match.reason}`);
  });
  if (explain && args.explain) for (const line of ['', ...candidateLines(explain)]) deps.output.out(line);
  for (const slug of args.why ?? []) {
    const candidate = explain?.candidates.find((c) => c.slug === slug || c.replaces === slug);
    if (!candidate || !explain) continue;
    for (const line of ['', ...describeCandidate(candidate, explain)]) deps.output.out(line);
  }
  return 0;
}

/** Arguments of `org skills rm` and `restore`. */
export interface SkillsSlugArgs extends SkillFlags {
  slug: string;
}

/** Deletes a skill (its file moves to skills/.deleted/; restorable). */
export async function runSkillsRm(args: SkillsSlugArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const skill = await client.getSkill(args.slug);
  const structureId = skill.frontmatter.structure_id ?? (await writeScope(client, args.structure, deps.env));
  await client.deleteSkill(args.slug, structureId);
  deps.output.out(`deleted ${args.slug} (undo with: org skills restore ${args.slug})`);
  return 0;
}

/** Restores the newest deleted version of a skill. */
export async function runSkillsRestore(args: SkillsSlugArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structureId = await writeScope(client, args.structure, deps.env);
  const skill = await client.restoreSkill(args.slug, structureId);
  deps.output.out(`restored ${skill.slug} (${skill.frontmatter.status})`);
  return 0;
}

/** Lists deleted skills that can be restored. */
export async function runSkillsDeleted(args: SkillFlags, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structureId = await skillScope(client, args.structure, deps.env);
  const { skills } = await client.deletedSkills(structureId);
  if (args.json) printJson(deps.output, skills);
  else
    printTable(
      deps.output,
      skills,
      [
        { header: 'slug', value: (s) => s.slug },
        { header: 'deleted at', value: (s) => s.deleted_at },
        { header: 'name', value: (s) => s.name, max: 60 },
      ],
      'nothing to restore',
    );
  return 0;
}

/** Shows the git history of a skill's file. */
export async function runSkillsHistory(args: SkillsSlugArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { commits } = await client.skillHistory(args.slug);
  if (args.json) printJson(deps.output, commits);
  else
    printTable(
      deps.output,
      commits,
      [
        { header: 'commit', value: (c) => c.commit.slice(0, 10) },
        { header: 'date', value: (c) => c.date },
        { header: 'author', value: (c) => c.author, max: 30 },
        { header: 'message', value: (c) => c.message, max: 70 },
      ],
      `no commits for ${args.slug} (the library is not in a git work tree, or the file was never committed)`,
    );
  return 0;
}

/** Registers `org skills …`. */
export function registerSkills(program: Command, ctx: CommandContext): void {
  const deps = () => ({ output: ctx.output, ...ctx.deps });
  const skills = program
    .command('skills')
    .description('the skill library: list, show, search, write, lint and curate markdown skills')
    .addHelpText('after', examples('org skills list', 'org skills show triage-production-incident', 'org skills search "customer wants a refund"', 'org skills new plan-offsite', 'org skills lint'));

  withStructure(withConnection(skills.command('list').description('list the skills a structure can use')))
    .option('--status <statuses>', 'comma list of draft, complete, deprecated (default: complete,draft)')
    .option('--category <category>', 'only this category')
    .option('--tag <tag>', 'only skills with this tag')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills list', 'org skills list --status draft --json', 'org skills list -s Demo --tag finance'))
    .action(async (flags: SkillsListArgs) => ctx.setExit(await runSkillsList(flags, deps())));

  withConnection(skills.command('show <slug>').description('show a skill, its markdown rendered for the terminal'))
    .option('--raw', 'print the markdown body as it is')
    .option('--json', 'print the skill record as JSON')
    .addHelpText('after', examples('org skills show run-month-end-close', 'org skills show run-month-end-close --raw | less'))
    .action(async (slug: string, flags: SkillsShowArgs) => ctx.setExit(await runSkillsShow({ ...flags, slug }, deps())));

  withStructure(withConnection(skills.command('search <query...>').description('rank the complete skills an agent would match, with score and reason')))
    .option('-n, --limit <n>', 'how many matches (1–50, default 5)', positiveInt)
    .option('--why <slug>', 'explain why this skill was or was not matched (repeatable)', (slug: string, previous: string[] = []) => [...previous, slug])
    .option('--explain', 'list every candidate considered and why it was kept or cut')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills search close the books for March', 'org skills search "invoice overdue" -n 3 --json', 'org skills search "our website is down" --why triage-production-incident'))
    .action(async (words: string[], flags: SkillsSearchArgs) => ctx.setExit(await runSkillsSearch({ ...flags, query: words.join(' ') }, deps())));

  withStructure(withConnection(skills.command('rm <slug>').description('delete a skill (its file moves to skills/.deleted/; restorable)')))
    .addHelpText('after', examples('org skills rm old-onboarding', 'org skills restore old-onboarding'))
    .action(async (slug: string, flags: SkillsSlugArgs) => ctx.setExit(await runSkillsRm({ ...flags, slug }, deps())));

  withStructure(withConnection(skills.command('restore <slug>').description('restore the newest deleted version of a skill')))
    .addHelpText('after', examples('org skills deleted', 'org skills restore old-onboarding'))
    .action(async (slug: string, flags: SkillsSlugArgs) => ctx.setExit(await runSkillsRestore({ ...flags, slug }, deps())));

  withStructure(withConnection(skills.command('deleted').description('list deleted skills that can be restored')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills deleted'))
    .action(async (flags: SkillFlags) => ctx.setExit(await runSkillsDeleted(flags, deps())));

  withConnection(skills.command('history <slug>').description('git commits of a skill file'))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills history run-month-end-close'))
    .action(async (slug: string, flags: SkillsSlugArgs) => ctx.setExit(await runSkillsHistory({ ...flags, slug }, deps())));

  registerSkillAuthoring(skills, ctx);
  registerSkillTransfer(skills, ctx);
  registerSkillGaps(skills, ctx);
}
