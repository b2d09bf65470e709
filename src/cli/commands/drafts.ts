/**
 * Runners of `org drafts`: review the draft skills agents learned — approve (status →
 * complete), edit in $EDITOR, reject (deleted, restorable) or skip — in an Ink queue;
 * without a terminal or with --json, list them; `approve`/`reject SLUG` decide one
 * draft without the queue (scripts, CI).
 */
import { readFile } from 'node:fs/promises';
import type { OrgClient } from '../../client/index.js';
import type { SkillListEntry } from '../../client/types.js';
import { invalid } from '../../core/errors.js';
import { parseSkillText } from '../../core/skills/index.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printRows } from '../format.js';
import { commandLine } from '../quote.js';
import { describeStructure, findStructure } from '../resolve.js';
import { changeScope } from '../skill-target.js';
import { editSkill, homeOf } from '../skills/edit.js';
import type { DraftActions } from '../ui/drafts/useDrafts.js';

/** Arguments of `org drafts`. */
export interface DraftsArgs extends ConnectionFlags {
  structure?: string;
  json?: boolean;
  /** List the drafts instead of opening the queue. */
  list?: boolean;
  home?: string;
  remote?: boolean;
}

/** Options of {@link draftActions}. */
export interface DraftActionOptions {
  /** Home folder to edit local files in (undefined: always through the API). */
  home?: string;
  openEditor: (file: string) => Promise<void>;
}

/** The queue's actions over the API, for drafts visible to `structureId`. */
export function draftActions(client: OrgClient, structureId: string, options: DraftActionOptions): DraftActions {
  const scopes = new Map<string, string | undefined>();
  const scopeOf = (slug: string) => scopes.get(slug) ?? structureId;
  return {
    async load() {
      const { skills } = await client.listSkills({ structure_id: structureId, status: ['draft'] });
      for (const skill of skills) scopes.set(skill.slug, skill.structure_id);
      return skills;
    },
    preview: (slug) => client.getSkill(slug, structureId),
    async approve(slug) {
      const skill = await client.getSkill(slug, structureId);
      const target = await changeScope(client, skill, async () => structureId);
      const { structure_id: _scope, ...frontmatter } = skill.frontmatter;
      await client.saveSkill({
        ...(target !== undefined ? { structure_id: target } : {}),
        slug,
        frontmatter: { ...frontmatter, status: 'complete' },
        body: skill.body,
      });
    },
    async reject(slug) {
      const skill = await client.getSkill(slug, structureId);
      await client.deleteSkill(slug, await changeScope(client, skill, async () => structureId));
    },
    async restore(slug) {
      await client.restoreSkill(slug, await changeScope(client, { frontmatter: { structure_id: scopes.get(slug) } }, async () => structureId));
    },
    async edit(slug) {
      const outcome = await editSkill(slug, {
        client,
        ...(options.home ? { home: options.home } : {}),
        openEditor: options.openEditor,
        structureId: async () => scopeOf(slug),
      });
      if (outcome.kind === 'saved') return outcome.skill;
      if (outcome.kind === 'unchanged') return undefined;
      const parsed = parseSkillText(slug, await readFile(outcome.file, 'utf8'), {
        learned_by: 'agent',
        learned_at: new Date().toISOString(),
        category: 'general',
        difficulty: 'medium',
      });
      if (!parsed.ok) throw new Error(`${slug}.md does not parse now: ${parsed.message}`);
      return parsed.skill;
    },
  };
}

function listDrafts(drafts: SkillListEntry[], args: DraftsArgs, deps: CommandDeps): void {
  printRows(deps.output, drafts, {
    json: args.json,
    columns: [
      { header: 'slug', value: (d) => d.slug },
      { header: 'learned', value: (d) => (d.learned_at ? d.learned_at.slice(0, 16).replace('T', ' ') : '—') },
      { header: 'by', value: (d) => d.learned_by },
      { header: 'name', value: (d) => d.name, max: 60 },
    ],
    empty: 'no drafts to review',
  });
  if (!args.json && drafts.length > 0) deps.output.err(`approve one with: ${commandLine('org', 'drafts', 'approve', drafts[0]!.slug)}`);
}

/** Runs the review queue (or lists the drafts when not interactive / --json). */
export async function runDrafts(args: DraftsArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structure = await findStructure(client, args.structure, deps.env);
  const home = args.remote ? undefined : homeOf(args.home, deps.cwd, deps.env);
  const actions = draftActions(client, structure.id, { ...(home ? { home } : {}), openEditor: deps.openEditor });
  if (args.json || args.list || !deps.interactive) {
    listDrafts(await actions.load(), args, deps);
    return 0;
  }
  // Ink and the UI load only for interactive use (Ink's layout engine costs ~0.4 s at start).
  const [{ render }, { createElement }, { DraftsApp }] = await Promise.all([import('ink'), import('react'), import('../ui/drafts/DraftsApp.js')]);
  const app = render(
    createElement(DraftsApp, {
      actions,
      title: structure.name,
      width: Math.min(deps.stdout.columns ?? 80, 100) - 4,
      listHeight: Math.max(4, Math.min(10, Math.floor(((deps.stdout.rows ?? 30) - 12) / 3))),
      previewLines: Math.max(6, (deps.stdout.rows ?? 30) - 18),
      onExit: () => app.unmount(),
    }),
    { stdin: deps.stdin, stdout: deps.stdout, exitOnCtrlC: false },
  );
  await app.waitUntilExit();
  return 0;
}

/** Arguments of `org drafts approve|reject`. */
export interface DraftDecisionArgs extends ConnectionFlags {
  slug: string;
  structure?: string;
}

/** The draft `slug` among the drafts visible to the structure, with the structure's name. */
async function findDraft(client: OrgClient, args: DraftDecisionArgs, deps: CommandDeps) {
  const structure = await findStructure(client, args.structure, deps.env);
  const skill = await client.getSkill(args.slug, structure.id);
  if (skill.frontmatter.status !== 'draft') {
    throw invalid(`${args.slug} is not a draft (its status is ${skill.frontmatter.status}); list the drafts with: ${commandLine('org', 'drafts', 'list', '-s', structure.name)}`);
  }
  return { structure, actions: draftActions(client, skill.frontmatter.structure_id ?? structure.id, { openEditor: deps.openEditor }) };
}

/** Approves one draft: its status becomes complete, so agents match it from now on. */
export async function runDraftsApprove(args: DraftDecisionArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { structure, actions } = await findDraft(client, args, deps);
  await actions.approve(args.slug);
  deps.output.out(`approved ${args.slug}: agents of ${describeStructure(structure)} now match it`);
  return 0;
}

/** Rejects one draft: it is deleted (restorable with `org skills restore`). */
export async function runDraftsReject(args: DraftDecisionArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { actions } = await findDraft(client, args, deps);
  await actions.reject(args.slug);
  deps.output.out(`rejected ${args.slug} (undo with: ${commandLine('org', 'skills', 'restore', args.slug)})`);
  return 0;
}
