/** `org agents list|add|rm|restore`: the nodes of a structure. */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { NewNode } from '../../client/types.js';
import { invalid } from '../../core/errors.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printTable } from '../format.js';
import { findNode, findStructureDetail } from '../resolve.js';
import { examples, withConnection, withStructure, type CommandContext } from './common.js';

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
    if (args.json) printJson(deps.output, agents);
    else
      printTable(
        deps.output,
        agents,
        [
          { header: 'role id', value: (n) => n.role_id },
          { header: 'label', value: (n) => n.label, max: 40 },
          { header: 'archived', value: (n) => n.archived_at },
        ],
        `nothing archived in ${detail.name}`,
      );
    return 0;
  }
  const byId = new Map(detail.agents.map((node) => [node.id, node]));
  if (args.json) printJson(deps.output, detail.agents);
  else
    printTable(
      deps.output,
      detail.agents,
      [
        { header: 'role id', value: (n) => n.role_id },
        { header: 'label', value: (n) => n.label, max: 40 },
        { header: 'state', value: (n) => n.state },
        { header: 'parent', value: (n) => (n.parent_id ? (byId.get(n.parent_id)?.role_id ?? '?') : '—') },
        { header: 'runtime', value: (n) => n.container_url ?? 'built-in' },
      ],
      `no nodes in ${detail.name}`,
    );
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
  deps.output.out(`removed ${node.label} (${node.role_id}); its history is archived (undo with: org agents restore ${node.role_id} -s ${detail.id.slice(0, 8)})`);
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

/** Registers `org agents …`. */
export function registerAgents(program: Command, ctx: CommandContext): void {
  const deps = () => ({ output: ctx.output, ...ctx.deps });
  const agents = program
    .command('agents')
    .description('the nodes (agents) of a structure: list, add, rm, restore')
    .addHelpText('after', examples('org agents list -s Demo', 'org agents add sales-sdr --label "SDR" --parent sales-lead', 'org agents rm sales-sdr'));

  withStructure(withConnection(agents.command('list').description('list the nodes of a structure')))
    .option('--archived', 'list archived nodes instead')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org agents list', 'org agents list -s Demo --archived'))
    .action(async (flags: AgentsArgs & { archived?: boolean }) => ctx.setExit(await runAgentsList(flags, deps())));

  withStructure(withConnection(agents.command('add <role_id>').description('add a node (role id <team>-<role>) under a parent')))
    .requiredOption('-l, --label <label>', 'what people call the node, e.g. "Head of finance"')
    .option('-p, --parent <node>', 'role id or label of the parent (required unless the structure is empty)')
    .option('--context <text>', 'starting context: who the agent is and how it works')
    .option('--context-file <file>', 'read the starting context from a file')
    .option('--container-url <url>', 'run the node’s turns in a container agent at this URL')
    .option('--x <x>', 'canvas x position')
    .option('--y <y>', 'canvas y position')
    .option('--json', 'print the node as JSON')
    .addHelpText('after', examples('org agents add exec-cfo --label CFO --parent exec-ceo', 'org agents add ops-bot --label "Ops bot" --parent exec-coo --container-url http://127.0.0.1:9000'))
    .action(async (roleId: string, flags: AgentsAddArgs) => ctx.setExit(await runAgentsAdd({ ...flags, roleId }, deps())));

  withStructure(withConnection(agents.command('rm <node>').description('delete a childless node; its history and artifacts are archived')))
    .addHelpText('after', examples('org agents rm sales-sdr', 'org agents rm "SDR" -s "Acme sales"'))
    .action(async (roleId: string, flags: AgentsArgs) => ctx.setExit(await runAgentsRm({ ...flags, roleId }, deps())));

  withStructure(withConnection(agents.command('restore <role_id>').description('restore an archived node')))
    .option('--json', 'print the node as JSON')
    .addHelpText('after', examples('org agents list --archived', 'org agents restore sales-sdr'))
    .action(async (roleId: string, flags: AgentsArgs) => ctx.setExit(await runAgentsRestore({ ...flags, roleId }, deps())));
}
