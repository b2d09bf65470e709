/** Wiring of `org skills …`: reading, searching, writing, linting and curating skills. */
import type { Command } from 'commander';
import type { SkillsEditArgs, SkillsLintArgs, SkillsNewArgs } from '../commands/skills-author.js';
import type { SkillsGapsArgs } from '../commands/skills-gaps.js';
import type { SkillsRestoreVersionArgs, SkillsShowVersionArgs, SkillsVersionsArgs } from '../commands/skills-versions.js';
import type { SkillsExportArgs, SkillsImportArgs } from '../commands/skills-transfer.js';
import type { SkillFlags, SkillsDeletedArgs, SkillsForkArgs, SkillsListArgs, SkillsSearchArgs, SkillsShowArgs, SkillsSlugArgs } from '../commands/skills.js';
import { collect, examples, positiveInt, run, withConnection, withStructure, type CommandContext } from './common.js';

const readers = () => import('../commands/skills.js');
const authors = () => import('../commands/skills-author.js');
const transfer = () => import('../commands/skills-transfer.js');
const gaps = () => import('../commands/skills-gaps.js');
const versions = () => import('../commands/skills-versions.js');

/** Registers `org skills …` and returns the `skills` command (other files add subcommands to it). */
export function registerSkills(program: Command, ctx: CommandContext): Command {
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
    .action((flags: SkillsListArgs) => run(ctx, flags, async () => (await readers()).runSkillsList));

  withStructure(withConnection(skills.command('show <slug>').description('show a skill, its markdown rendered for the terminal (the structure’s own, else the instance skill)')))
    .option('--raw', 'print the markdown body as it is (with --version: the version’s whole file)')
    .option('--json', 'print the skill record as JSON')
    .option('--version <version>', 'show this version instead (a commit or kept copy, as org skills versions lists them)')
    .option('--diff', 'with --version: a unified diff from that version to the current file')
    .addHelpText('after', examples('org skills show run-month-end-close', 'org skills show run-month-end-close --raw | less', 'org skills show run-month-end-close --version 1a2b3c4d --diff'))
    .action((slug: string, flags: SkillsShowArgs & { version?: string }) => {
      if (flags.version !== undefined) return run(ctx, { ...flags, slug, version: flags.version } satisfies SkillsShowVersionArgs, async () => (await versions()).runSkillsShowVersion);
      return run(ctx, { ...flags, slug }, async () => (await readers()).runSkillsShow);
    });

  withStructure(withConnection(skills.command('search <query...>').description('rank the complete skills an agent would match, with score and reason')))
    .option('-n, --limit <n>', 'how many matches (1–50, default 5)', positiveInt)
    .option('--why <slug>', 'explain why this skill was or was not matched (repeatable)', collect)
    .option('--explain', 'list every candidate considered and why it was kept or cut')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills search close the books for March', 'org skills search "invoice overdue" -n 3 --json', 'org skills search "our website is down" --why triage-production-incident'))
    .action((words: string[], flags: SkillsSearchArgs) => run(ctx, { ...flags, query: words.join(' ') }, async () => (await readers()).runSkillsSearch));

  withStructure(withConnection(skills.command('new <slug>').description('scaffold a skill from the template and open it in $EDITOR until it is valid')))
    .option('--home <dir>', 'home folder whose skills/ gets the file (env ORG_HOME; default: current directory)')
    .option('--remote', 'save through the API even when a local skills/ folder exists')
    .option('--no-edit', 'only write the scaffold, do not open the editor')
    .addHelpText('after', examples('org skills new plan-offsite', 'EDITOR=nano org skills new plan-offsite', 'org skills new plan-offsite --remote --url https://org.example.com'))
    .action((slug: string, flags: SkillsNewArgs) => run(ctx, { ...flags, slug }, async () => (await authors()).runSkillsNew));

  withStructure(withConnection(skills.command('edit <slug>').description('edit a skill in $EDITOR (the local file, or a round-trip through the API)')))
    .option('--home <dir>', 'home folder holding skills/ (env ORG_HOME; default: current directory)')
    .option('--remote', 'edit through the API even when the file is local')
    .addHelpText('after', examples('org skills edit run-month-end-close', 'org skills edit run-month-end-close --remote'))
    .action((slug: string, flags: SkillsEditArgs) => run(ctx, { ...flags, slug }, async () => (await authors()).runSkillsEdit));

  skills
    .command('lint [paths...]')
    .description('check skill files locally, by the rules the server applies (file:line messages)')
    .option('--home <dir>', 'home folder whose skills/ is checked when no path is given (env ORG_HOME)')
    .option('--strict', 'warnings fail too')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills lint', 'org skills lint skills/plan-offsite.md', 'org skills lint --strict && git commit'))
    .action((paths: string[], flags: Omit<SkillsLintArgs, 'paths'>) => run(ctx, { ...flags, paths }, async () => (await authors()).runSkillsLint));

  withStructure(withConnection(skills.command('rm <slug>').aliases(['delete', 'remove']).description('delete a skill of the structure (its file moves to the deleted area; restorable); instance skills: the instance administrator')))
    .addHelpText('after', examples('org skills rm old-onboarding', 'org skills restore old-onboarding'))
    .action((slug: string, flags: SkillsSlugArgs) => run(ctx, { ...flags, slug }, async () => (await readers()).runSkillsRm));

  withStructure(withConnection(skills.command('restore <slug>').description('restore the newest deleted version of a skill')))
    .addHelpText('after', examples('org skills deleted', 'org skills restore old-onboarding'))
    .action((slug: string, flags: SkillsSlugArgs) => run(ctx, { ...flags, slug }, async () => (await readers()).runSkillsRestore));

  withStructure(withConnection(skills.command('fork <slug>').description('copy an instance skill into the structure as its own skill, which you may then change')))
    .option('--as <slug>', 'slug of the copy (default: the same slug, which then replaces the original for this structure)')
    .addHelpText('after', examples('org skills fork chase-overdue-invoices', 'org skills fork chase-overdue-invoices --as chase-invoices-our-way -s Finance'))
    .action((slug: string, flags: SkillsForkArgs) => run(ctx, { ...flags, slug }, async () => (await readers()).runSkillsFork));

  withStructure(withConnection(skills.command('deleted').description('list deleted skills that can be restored')))
    .option('--replaced', 'also list the earlier versions that updates replaced (kept in skills/.deleted/ too)')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills deleted', 'org skills deleted --replaced'))
    .action((flags: SkillsDeletedArgs) => run(ctx, flags, async () => (await readers()).runSkillsDeleted));

  withConnection(skills.command('problems').description('skill files the server could not load, and why'))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills problems', 'org skills lint skills/   # the same checks, locally'))
    .action((flags: { json?: boolean }) => run(ctx, flags, async () => (await readers()).runSkillsProblems));

  withStructure(withConnection(skills.command('history <slug>').description('git commits of a skill file')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills history run-month-end-close'))
    .action((slug: string, flags: SkillsSlugArgs) => run(ctx, { ...flags, slug }, async () => (await readers()).runSkillsHistory));

  withStructure(withConnection(skills.command('versions <slug>').description('versions of a skill, newest first: git commits of its file, and the texts updates replaced')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills versions run-month-end-close', 'org skills show run-month-end-close --version 1a2b3c4d --diff'))
    .action((slug: string, flags: SkillsVersionsArgs) => run(ctx, { ...flags, slug }, async () => (await versions()).runSkillsVersions));

  withStructure(withConnection(skills.command('restore-version <slug> <version>').description('write a version back as the skill’s next version (refused if the skill changed meanwhile)')))
    .addHelpText('after', examples('org skills versions run-month-end-close', 'org skills restore-version run-month-end-close 1a2b3c4d'))
    .action((slug: string, version: string, flags: SkillFlags) => run(ctx, { ...flags, slug, version } satisfies SkillsRestoreVersionArgs, async () => (await versions()).runSkillsRestoreVersion));

  withStructure(withConnection(skills.command('export [slugs...]').description('write skills as Agent Skills folders (<name>/SKILL.md) into a folder')))
    .option('--to <dir>', 'folder the skill folders go into, e.g. .claude/skills')
    .option('--json', 'print the written folders as JSON')
    .addHelpText('after', examples('org skills export --to .claude/skills', 'org skills export chase-overdue-invoices --to ./out'))
    .action((slugs: string[], flags: Omit<SkillsExportArgs, 'slugs'>) => run(ctx, { ...flags, slugs }, async () => (await transfer()).runSkillsExport));

  withStructure(withConnection(skills.command('import <dir>').description('import the Agent Skills folders found below a folder (shows the plan first)')))
    .option('--dry-run', 'only show what would be imported')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', examples('org skills import .claude/skills --dry-run', 'org skills import ~/.agents/skills'))
    .action((dir: string, flags: Omit<SkillsImportArgs, 'dir'>) => run(ctx, { ...flags, dir }, async () => (await transfer()).runSkillsImport));

  withStructure(withConnection(skills.command('gaps').description('chat messages that matched no skill or only weakly, most frequent first (operator)')))
    .option('--days <n>', 'how far back to look (default 30)', positiveInt)
    .option('-n, --limit <n>', 'how many gaps (default 50)', positiveInt)
    .option('--start <n>', 'scaffold a skill from gap n, with its messages as the first triggers', positiveInt)
    .option('--slug <slug>', 'slug of the skill started with --start (default: from the message)')
    .option('--home <dir>', 'home folder whose skills/ gets the new file (env ORG_HOME; default: current directory)')
    .option('--remote', 'with --start: save through the API even when a local skills/ folder exists')
    .option('--no-edit', 'with --start: only write the scaffold, do not open the editor')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org skills gaps', 'org skills gaps --days 7 --json', 'org skills gaps --start 1 --slug handle-website-outage'))
    .action((flags: SkillsGapsArgs) => run(ctx, flags, async () => (await gaps()).runSkillsGaps));

  return skills;
}
