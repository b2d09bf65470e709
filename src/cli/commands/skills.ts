/**
 * Runners of `org skills list|show|search|rm|restore|history|deleted`: reading and
 * curating the skill library through the API. Authoring (`new`, `edit`, `lint`) is in
 * skills-author.ts; the wiring is in program/skills.ts.
 */
import type { SkillStatus } from '../../client/types.js';
import { invalid, isOrgError } from '../../core/errors.js';
import { SKILL_STATUSES } from '../../core/skills/types.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import { candidateLines, describeCandidate } from '../skills/why.js';
import { quoteArg } from '../quote.js';
import { namedScope, skillScope, writableStructures, writeScope, type SkillFlags } from '../scope.js';
import { changeScope } from '../skill-target.js';

export type { SkillFlags } from '../scope.js';

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
  printRows(deps.output, skills, {
    json: args.json,
    columns: [
      { header: 'slug', value: (s) => s.slug },
      { header: 'status', value: (s) => s.status },
      { header: 'category', value: (s) => s.category },
      { header: 'name', value: (s) => s.name, max: 60 },
    ],
    empty: 'no skills (write one with: org skills new SLUG)',
  });
  return 0;
}

/** Arguments of `org skills show`. */
export interface SkillsShowArgs extends SkillFlags {
  slug: string;
  raw?: boolean;
  width?: number;
  /** Only with a version (`--version`, see skills-versions.ts): refused here. */
  diff?: boolean;
}

/** Shows a skill: its front matter in brief, then the body rendered for the terminal. */
export async function runSkillsShow(args: SkillsShowArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  if (args.diff) throw invalid('--diff compares a version with the current file: name the version with --version <version> (org skills versions lists them)');
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const skill = await client.getSkill(args.slug, await namedScope(client, args.structure, deps.env)).catch(async (error: unknown) => {
    // A file that is there but does not load is no missing skill: say what is wrong with it.
    if (!isOrgError(error) || error.code !== 'not_found') throw error;
    const problem = (await client.skillProblems().catch(() => ({ problems: [] as { file: string; message: string; line?: number }[] }))).problems.find(
      (entry) => entry.file === `${args.slug}.md` || entry.file.endsWith(`/${args.slug}.md`),
    );
    if (!problem) throw error;
    throw invalid(`skills/${problem.file}${problem.line ? `:${problem.line}` : ''} does not load, so the server skips it: ${problem.message} (fix the file; org skills lint checks it)`);
  });
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
  out(`learned by ${fm.learned_by}${fm.learned_at ? ` at ${fm.learned_at}` : ''}${fm.tool_url ? ` · tool ${fm.tool_url}` : ''}${fm.structure_id ? ` · structure ${fm.structure_id}` : ''}`);
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

/**
 * Deletes a skill (its file moves to the deleted area; restorable): the structure's own
 * skill of the slug, or an instance skill when the caller is the instance administrator
 * (anyone else is told to fork it: an instance skill is shared by every structure).
 */
export async function runSkillsRm(args: SkillsSlugArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const scope = () => writeScope(client, args.structure, deps.env);
  const skill = await client.getSkill(args.slug, await namedScope(client, args.structure, deps.env));
  await client.deleteSkill(args.slug, await changeScope(client, skill, scope));
  deps.output.out(`deleted ${args.slug} (undo with: org skills restore ${quoteArg(args.slug)})`);
  return 0;
}

/**
 * Restores the newest deleted version of a skill. Without `-s` it tries each structure
 * the caller may write in (a structure's own skill comes back through it), then, for the
 * instance administrator, the instance library.
 */
export async function runSkillsRestore(args: SkillsSlugArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const admin = (await client.identify()).admin;
  const candidates: (string | undefined)[] = (await writableStructures(client, args.structure, deps.env).catch((error: unknown) => {
    if (admin) return [];
    throw error;
  })).map((structure) => structure.id);
  if (admin) candidates.push(undefined);
  let refusal: unknown;
  for (const [i, structureId] of candidates.entries()) {
    try {
      const skill = await client.restoreSkill(args.slug, structureId);
      deps.output.out(`restored ${skill.slug} (${skill.frontmatter.status})`);
      return 0;
    } catch (error) {
      const code = isOrgError(error) ? error.code : undefined;
      if (code !== 'not_found' && code !== 'forbidden' && code !== 'instance_skill') throw error;
      // "Fork it" says more than "not found" when nothing else comes back.
      if (code === 'instance_skill' || refusal === undefined) refusal = error;
      if (i === candidates.length - 1) throw refusal;
    }
  }
  return 0;
}

/** Arguments of `org skills fork`. */
export interface SkillsForkArgs extends SkillsSlugArgs {
  /** The copy's slug (default: the original's). */
  as?: string;
}

/** Copies an instance skill into a structure as its own skill, which its operators may then change. */
export async function runSkillsFork(args: SkillsForkArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structureId = await writeScope(client, args.structure, deps.env);
  const skill = await client.forkSkill(args.slug, structureId, args.as);
  deps.output.out(`forked ${args.slug} into this structure as ${skill.slug}: change it with  org skills edit ${quoteArg(skill.slug)}`);
  return 0;
}

/** Flags of `org skills deleted`. */
export interface SkillsDeletedArgs extends SkillFlags {
  /** Also the earlier versions that updates replaced (kept beside the deleted ones). */
  replaced?: boolean;
}

/** Lists deleted skills that can be restored (`--replaced`: with the versions updates replaced). */
export async function runSkillsDeleted(args: SkillsDeletedArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structureId = await skillScope(client, args.structure, deps.env);
  const { skills } = await client.deletedSkills(structureId);
  const shown = args.replaced ? skills : skills.filter((skill) => skill.reason !== 'replaced');
  printRows(deps.output, shown, {
    json: args.json,
    columns: [
      { header: 'slug', value: (s) => s.slug },
      { header: args.replaced ? 'when' : 'deleted at', value: (s) => s.deleted_at },
      ...(args.replaced ? [{ header: 'what', value: (s: (typeof skills)[number]) => (s.reason === 'replaced' ? 'replaced by an update' : 'deleted') }] : []),
      { header: 'name', value: (s) => s.name, max: 60 },
    ],
    empty: 'nothing to restore',
  });
  return 0;
}

/**
 * Lists the skill files the server could not load (it skips them), with why: what
 * `org skills lint` finds locally, as the server sees the home.
 */
export async function runSkillsProblems(args: ConnectionFlags & { json?: boolean }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { problems } = await client.skillProblems();
  printRows(deps.output, problems, {
    json: args.json,
    columns: [
      { header: 'file', value: (p) => (p.line ? `${p.file}:${p.line}` : p.file) },
      { header: 'problem', value: (p) => p.message },
    ],
    empty: 'every skill file loads',
  });
  return 0;
}

/** Shows the git history of a skill's file. */
export async function runSkillsHistory(args: SkillsSlugArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { commits } = await client.skillHistory(args.slug, await namedScope(client, args.structure, deps.env));
  printRows(deps.output, commits, {
    json: args.json,
    columns: [
      { header: 'commit', value: (c) => c.commit.slice(0, 10) },
      { header: 'date', value: (c) => c.date },
      { header: 'author', value: (c) => c.author, max: 30 },
      { header: 'message', value: (c) => c.message, max: 70 },
    ],
    empty: `no commits for ${args.slug} (the library is not in a git work tree, or the file was never committed)`,
  });
  return 0;
}
