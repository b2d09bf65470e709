/** `org structures list|show|create`: the structures you can reach, drawn as trees. */
import type { Command } from 'commander';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printTable } from '../format.js';
import { findStructureDetail } from '../resolve.js';
import { drawTree } from '../tree.js';
import { examples, withConnection, type CommandContext } from './common.js';

/** Arguments of the structures commands. */
export interface StructuresArgs extends ConnectionFlags {
  json?: boolean;
}

/** Lists the structures the caller can access, with the caller's role. */
export async function runStructuresList(args: StructuresArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { structures } = await client.listStructures();
  if (args.json) printJson(deps.output, structures);
  else
    printTable(
      deps.output,
      structures,
      [
        { header: 'name', value: (s) => s.name, max: 40 },
        { header: 'role', value: (s) => s.role },
        { header: 'nodes', value: (s) => String(s.node_count) },
        { header: 'created', value: (s) => s.created_at.slice(0, 10) },
        { header: 'id', value: (s) => s.id },
      ],
      'no structures yet (create one with: org structures create NAME --template exec-team)',
    );
  return 0;
}

/** Shows a structure as a tree of nodes with their labels, role ids and states. */
export async function runStructuresShow(args: StructuresArgs & { structure?: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  if (args.json) {
    printJson(deps.output, detail);
    return 0;
  }
  const working = detail.agents.filter((node) => node.state === 'working').length;
  deps.output.out(`${detail.name}  (${detail.id})`);
  deps.output.out(`template ${detail.template} · ${detail.agents.length} node(s)${working ? ` · ${working} working` : ''} · created ${detail.created_at.slice(0, 10)}`);
  deps.output.out('');
  if (detail.agents.length === 0) deps.output.out(`no nodes yet (add one with: org agents add ${detail.name} team-lead --label "Team lead")`);
  for (const line of drawTree(detail.agents)) deps.output.out(line);
  return 0;
}

/** Arguments of `org structures create`. */
export interface StructuresCreateArgs extends StructuresArgs {
  name: string;
  template?: string;
}

/** Creates a structure from a template; the caller becomes its owner. */
export async function runStructuresCreate(args: StructuresCreateArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const created = await client.createStructure(args.name, args.template ?? 'blank');
  if (args.json) {
    printJson(deps.output, created);
    return 0;
  }
  deps.output.out(`created ${created.name} (${created.id}) from ${created.template}, ${created.agents.length} node(s); you are its ${created.role}`);
  for (const line of drawTree(created.agents)) deps.output.out(line);
  return 0;
}

/** Registers `org structures …`. */
export function registerStructures(program: Command, ctx: CommandContext): void {
  const deps = () => ({ output: ctx.output, ...ctx.deps });
  const structures = program
    .command('structures')
    .description('structures (trees of agent nodes): list, show, create')
    .addHelpText('after', examples('org structures list', 'org structures show Demo', 'org structures create "Acme sales" --template sales-team'));

  withConnection(structures.command('list').description('list the structures you can access'))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org structures list', 'org structures list --json | jq -r ".[].id"'))
    .action(async (flags: StructuresArgs) => ctx.setExit(await runStructuresList(flags, deps())));

  withConnection(structures.command('show [structure]').description('draw a structure’s node tree with labels and states'))
    .option('--json', 'print the structure detail as JSON')
    .addHelpText('after', examples('org structures show', 'org structures show Demo', 'org structures show 6f0c1a2b --json'))
    .action(async (structure: string | undefined, flags: StructuresArgs) =>
      ctx.setExit(await runStructuresShow({ ...flags, ...(structure ? { structure } : {}) }, deps())),
    );

  withConnection(structures.command('create <name>').description('create a structure from a template; you become its owner'))
    .option('-t, --template <template>', 'exec-team, sales-team, research-lab, personal or blank', 'blank')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org structures create "Acme exec" --template exec-team', 'org structures create Sandbox'))
    .action(async (name: string, flags: StructuresCreateArgs) => ctx.setExit(await runStructuresCreate({ ...flags, name }, deps())));
}
