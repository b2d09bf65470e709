/**
 * Runners of a skill's versions: `org skills versions <slug>` (git commits of its file,
 * and the copies updates kept that git does not hold), `org skills show <slug> --version
 * <id>` (that version, rendered, raw, or `--diff` against the current file as a unified
 * diff), and `org skills restore-version <slug> <id>` (written back as the next version,
 * only while the skill is still the version just read: `If-Match`).
 */
import { createTwoFilesPatch } from 'diff';
import type { SkillVersionText } from '../../client/types.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { renderMarkdown } from '../markdown.js';
import { quoteArg } from '../quote.js';
import { namedScope, writeScope, type SkillFlags } from '../scope.js';
import { changeScope } from '../skill-target.js';

/** How a version is named in listings and messages: a commit by its first 12 digits, a kept copy by its id. */
export function versionLabel(version: { id: string; source: string }): string {
  return version.source === 'git' ? version.id.slice(0, 12) : version.id;
}

/** Arguments of `org skills versions`. */
export interface SkillsVersionsArgs extends SkillFlags {
  slug: string;
}

/** Lists the versions of a skill, newest first. */
export async function runSkillsVersions(args: SkillsVersionsArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const listed = await client.skillVersions(args.slug, await namedScope(client, args.structure, deps.env));
  if (args.json) {
    printJson(deps.output, listed);
    return 0;
  }
  printRows(deps.output, listed.versions, {
    columns: [
      { header: 'version', value: versionLabel },
      { header: 'date', value: (v) => v.date },
      { header: 'what', value: (v) => (v.source === 'git' ? `${v.message ?? ''} (${v.author ?? ''})` : 'the text an update replaced'), max: 90 },
    ],
    empty: listed.git
      ? `no versions of ${args.slug} yet: its file has no commits and no update replaced it`
      : `no versions of ${args.slug} yet: the library is not in a git work tree, and no update through org replaced it`,
  });
  if (listed.versions.length > 0) deps.output.out(`\nshow one: org skills show ${quoteArg(args.slug)} --version <version> [--diff]`);
  return 0;
}

/** Arguments of `org skills show --version`. */
export interface SkillsShowVersionArgs extends SkillFlags {
  slug: string;
  version: string;
  diff?: boolean;
  raw?: boolean;
  width?: number;
}

/** The unified diff from a version's file to the current one. */
export function versionDiff(slug: string, read: SkillVersionText): string {
  return createTwoFilesPatch(`${slug}.md@${versionLabel(read.version)}`, `${slug}.md (current)`, read.text, read.current.text, undefined, undefined, { context: 3 });
}

/** Shows one version of a skill: rendered (default), its file (`--raw`), or its diff to the current file (`--diff`). */
export async function runSkillsShowVersion(args: SkillsShowVersionArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const read = await client.skillVersion(args.slug, args.version, await namedScope(client, args.structure, deps.env));
  if (args.json) {
    printJson(deps.output, read);
    return 0;
  }
  if (args.diff) {
    deps.write(read.text === read.current.text ? `version ${versionLabel(read.version)} is the same as the current ${args.slug}\n` : versionDiff(args.slug, read));
    return 0;
  }
  if (args.raw) {
    deps.write(read.text);
    return 0;
  }
  const out = (line: string) => deps.output.out(line);
  const { version } = read;
  out(`${args.slug} at ${versionLabel(version)} · ${version.date}${version.source === 'git' ? ` · ${version.author ?? ''} · ${version.message ?? ''}` : ' · the text an update replaced'}`);
  if (!read.skill) {
    out(`this version does not parse as a skill (${read.problem ?? 'unknown problem'}); its file:`);
    deps.write(read.text);
    return 0;
  }
  const fm = read.skill.frontmatter;
  out(`${fm.name} · status ${fm.status}${fm.summary ? ` · ${fm.summary}` : ''}`);
  out('');
  const width = args.width ?? Math.min(deps.stdout.columns ?? 80, 100);
  for (const line of renderMarkdown(read.skill.body, width).split('\n')) out(line);
  return 0;
}

/** Arguments of `org skills restore-version`. */
export interface SkillsRestoreVersionArgs extends SkillFlags {
  slug: string;
  version: string;
}

/**
 * Writes a version back as the skill's next version. The current version is read first
 * and the restore sent with its ETag, so a change made in between is never overwritten
 * (the server answers 412 and nothing is written).
 */
export async function runSkillsRestoreVersion(args: SkillsRestoreVersionArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const readScope = await namedScope(client, args.structure, deps.env);
  const skill = await client.getSkill(args.slug, readScope);
  const read = await client.skillVersion(args.slug, args.version, readScope);
  const scope = await changeScope(client, skill, () => writeScope(client, args.structure, deps.env));
  const restored = await client.restoreSkillVersion(args.slug, read.version.id, scope, read.current.etag);
  deps.output.out(`restored ${restored.slug} to version ${versionLabel(read.version)} (${restored.frontmatter.status}); the text it replaced is a version too: org skills versions ${quoteArg(args.slug)}`);
  return 0;
}
