/** Runners of `org agents list|add|edit|move|rm|restore`: the nodes of a structure. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { NewNode, NodePatch } from '../../client/types.js';
import { invalid } from '../../core/errors.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { commandLine } from '../quote.js';
import { findNode, findStructureDetail } from '../resolve.js';

/** Flags of the agents commands. */
export interface AgentsArgs extends ConnectionFlags {
  structure?: string;
  json?: boolean;
}

/** Lists the nodes of a structure (and, with --archived, its archive). */
export async function runAgentsList(args: AgentsArgs & { archived?: boolean }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  if (args.archived) {
    const { agents } = await client.archive(detail.id);
    printRows(deps.output, agents, {
      json: args.json,
      columns: [
        { header: 'role id', value: (n) => n.role_id },
        { header: 'label', value: (n) => n.label, max: 40 },
        { header: 'archived', value: (n) => n.archived_at },
      ],
      empty: `nothing archived in ${detail.name}`,
    });
    return 0;
  }
  const byId = new Map(detail.agents.map((node) => [node.id, node]));
  printRows(deps.output, detail.agents, {
    json: args.json,
    columns: [
      { header: 'role id', value: (n) => n.role_id },
      { header: 'label', value: (n) => n.label, max: 40 },
      { header: 'state', value: (n) => n.state },
      { header: 'parent', value: (n) => (n.parent_id ? (byId.get(n.parent_id)?.role_id ?? '?') : '—') },
      { header: 'runtime', value: (n) => n.container_url ?? 'built-in' },
    ],
    empty: `no nodes in ${detail.name} (add the first with: ${commandLine('org', 'agents', 'add', 'team-lead', '--label', 'Team lead', '-s', detail.name)})`,
  });
  return 0;
}

/** Arguments of `org agents add`. */
export interface AgentsAddArgs extends AgentsArgs {
  roleId: string;
  label: string;
  parent?: string;
  context?: string;
  contextFile?: string;
  containerUrl?: string;
  x?: string;
  y?: string;
}

function coordinate(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw invalid(`--${name} must be a number, got "${raw}"`);
  return value;
}

/** Adds a node under a parent (the first node of a structure needs none). */
export async function runAgentsAdd(args: AgentsAddArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  if (args.context !== undefined && args.contextFile) throw invalid('give --context or --context-file, not both');
  const context = args.contextFile ? await readFile(resolve(deps.cwd, args.contextFile), 'utf8') : args.context;
  let parentId: string | null = null;
  if (args.parent) parentId = findNode(detail, args.parent).id;
  else if (detail.agents.length > 0) throw invalid(`name the parent with --parent (one of: ${detail.agents.map((n) => n.role_id).join(', ')})`);
  const x = coordinate(args.x, 'x');
  const y = coordinate(args.y, 'y');
  const node: NewNode = {
    role_id: args.roleId,
    label: args.label,
    parent_id: parentId,
    ...(x !== undefined ? { x } : {}),
    ...(y !== undefined ? { y } : {}),
    ...(context !== undefined ? { starting_context: context } : {}),
    ...(args.containerUrl ? { container_url: args.containerUrl } : {}),
  };
  const created = await client.addNode(detail.id, node);
  if (args.json) printJson(deps.output, created);
  else deps.output.out(`added ${created.label} (${created.role_id}) to ${detail.name}${args.parent ? ` under ${args.parent}` : ''}`);
  return 0;
}

/** Deletes a childless node (archived, restorable). */
export async function runAgentsRm(args: AgentsArgs & { roleId: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  const node = findNode(detail, args.roleId);
  await client.removeNode(detail.id, node.role_id);
  deps.output.out(`removed ${node.label} (${node.role_id}); its history is archived (undo with: ${commandLine('org', 'agents', 'restore', node.role_id, '-s', detail.id.slice(0, 8))})`);
  return 0;
}

/** Restores an archived node. */
export async function runAgentsRestore(args: AgentsArgs & { roleId: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  const node = await client.restoreNode(detail.id, args.roleId);
  if (args.json) printJson(deps.output, node);
  else deps.output.out(`restored ${node.label} (${node.role_id}) in ${detail.name}`);
  return 0;
}

/** Arguments of `org agents edit`. */
export interface AgentsEditArgs extends AgentsArgs {
  node: string;
  label?: string;
  /** A container URL, or false to run the node on the built-in runtime again (`--no-container`). */
  containerUrl?: string | false;
  context?: string;
  contextFile?: string;
  /** Edit the starting context in $EDITOR. */
  editContext?: boolean;
  parent?: string;
  x?: string;
  y?: string;
}

/** The starting context asked for by the flags, or undefined when none of them is given. */
async function contextOf(args: AgentsEditArgs, current: string, deps: CommandDeps): Promise<string | undefined> {
  const given = [args.context !== undefined, Boolean(args.contextFile), Boolean(args.editContext)].filter(Boolean).length;
  if (given > 1) throw invalid('give one of --context, --context-file and --edit-context');
  if (args.context !== undefined) return args.context;
  if (args.contextFile) return readFile(resolve(deps.cwd, args.contextFile), 'utf8');
  if (!args.editContext) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'org-context-'));
  const file = join(dir, 'starting-context.md');
  try {
    await writeFile(file, current);
    await deps.openEditor(file);
    return await readFile(file, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Changes a node: its label, container URL (or back to the built-in runtime), starting
 * context, canvas position, or its parent (a move, with its subtree).
 */
export async function runAgentsEdit(args: AgentsEditArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  const node = findNode(detail, args.node);
  const context = await contextOf(args, node.starting_context, deps);
  const x = coordinate(args.x, 'x');
  const y = coordinate(args.y, 'y');
  const patch: NodePatch = {
    ...(args.label !== undefined ? { label: args.label } : {}),
    ...(args.containerUrl !== undefined ? { container_url: args.containerUrl === false ? null : args.containerUrl } : {}),
    ...(context !== undefined && context !== node.starting_context ? { starting_context: context } : {}),
    ...(args.parent !== undefined ? { parent: findNode(detail, args.parent).role_id } : {}),
    ...(x !== undefined ? { x } : {}),
    ...(y !== undefined ? { y } : {}),
  };
  if (Object.keys(patch).length === 0) {
    if (args.editContext) {
      deps.output.out(`no changes to ${node.label} (${node.role_id})`);
      return 0;
    }
    throw invalid('nothing to change: give --label, --container-url, --no-container, --context, --context-file, --edit-context, --parent, --x or --y');
  }
  const updated = await client.patchNode(detail.id, node.role_id, patch);
  if (args.json) {
    printJson(deps.output, updated);
    return 0;
  }
  const changed: string[] = [];
  if (patch.label !== undefined) changed.push(`label "${updated.label}"`);
  if (patch.container_url !== undefined) changed.push(updated.container_url ? `container ${updated.container_url}` : 'the built-in runtime');
  if (patch.starting_context !== undefined) changed.push(`a starting context of ${updated.starting_context.length} characters`);
  if (patch.parent !== undefined) changed.push(`parent ${patch.parent}`);
  if (patch.x !== undefined || patch.y !== undefined) changed.push(`position ${updated.x}, ${updated.y}`);
  deps.output.out(`updated ${updated.label} (${updated.role_id}) in ${detail.name}: ${changed.join(', ')}`);
  return 0;
}

/** Moves a node (with its subtree) under another parent. */
export async function runAgentsMove(args: AgentsArgs & { node: string; parent: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  return runAgentsEdit({ ...args, parent: args.parent }, partial);
}
