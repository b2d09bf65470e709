/** Wiring of `org agents list|add|edit|move|rm|restore|timeline`. */
import type { Command } from 'commander';
import type { AgentsAddArgs, AgentsArgs, AgentsEditArgs } from '../commands/agents.js';
import { examples, run, withConnection, withStructure, type CommandContext } from './common.js';

const runners = () => import('../commands/agents.js');

/** Registers `org agents …`. */
export function registerAgents(program: Command, ctx: CommandContext): void {
  const agents = program
    .command('agents')
    .description('the nodes (agents) of a structure: list, add, edit, move, rm, restore, timeline')
    .addHelpText('after', examples('org agents list -s Demo', 'org agents add sales-sdr --label "SDR" --parent sales-lead', 'org agents edit exec-cto --container-url http://127.0.0.1:8700', 'org agents rm sales-sdr'));

  withStructure(withConnection(agents.command('list').description('list the nodes of a structure')))
    .option('--archived', 'list archived nodes instead')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org agents list', 'org agents list -s Demo --archived'))
    .action((flags: AgentsArgs & { archived?: boolean }) => run(ctx, flags, async () => (await runners()).runAgentsList));

  withStructure(withConnection(agents.command('add <role_id>').description('add a node (role id <team>-<role>) under a parent')))
    .requiredOption('-l, --label <label>', 'what people call the node, e.g. "Head of finance"')
    .option('-p, --parent <node>', 'role id or label of the parent (required unless the structure is empty)')
    .option('--context <text>', 'starting context: who the agent is and how it works')
    .option('--context-file <file>', 'read the starting context from a file')
    .option('--container-url <url>', 'run the node’s turns in a container agent at this URL')
    .option('--x <x>', 'canvas x position (without --x and --y: below the parent, right of its last child)')
    .option('--y <y>', 'canvas y position')
    .option('--json', 'print the node as JSON')
    .addHelpText('after', examples('org agents add exec-cfo --label CFO --parent exec-ceo', 'org agents add ops-bot --label "Ops bot" --parent exec-coo --container-url http://127.0.0.1:8700'))
    .action((roleId: string, flags: AgentsAddArgs) => run(ctx, { ...flags, roleId }, async () => (await runners()).runAgentsAdd));

  withStructure(withConnection(agents.command('edit <node>').description('change a node: label, container, starting context, position or parent')))
    .option('-l, --label <label>', 'a new label')
    .option('--container-url <url>', 'run the node’s turns in a container agent at this URL')
    .option('--no-container', 'run the node on the built-in runtime again')
    .option('--context <text>', 'a new starting context')
    .option('--context-file <file>', 'read the new starting context from a file')
    .option('--edit-context', 'edit the starting context in $EDITOR')
    .option('-p, --parent <node>', 'move the node (with its reports) under this node')
    .option('--x <x>', 'canvas x position')
    .option('--y <y>', 'canvas y position')
    .option('--json', 'print the node as JSON')
    .addHelpText('after', examples('org agents edit exec-cfo --label "Finance lead"', 'org agents edit exec-cto --edit-context', 'org agents edit ops-bot --no-container', 'org agents edit sales-sdr --parent exec-coo'))
    .action((node: string, flags: AgentsEditArgs) => run(ctx, { ...flags, node }, async () => (await runners()).runAgentsEdit));

  withStructure(withConnection(agents.command('move <node> <parent>').description('move a node (with its reports) under another node')))
    .option('--json', 'print the node as JSON')
    .addHelpText('after', examples('org agents move sales-sdr exec-coo', 'org agents move "SDR" "COO" -s Demo'))
    .action((node: string, parent: string, flags: AgentsArgs) => run(ctx, { ...flags, node, parent }, async () => (await runners()).runAgentsMove));

  withStructure(withConnection(agents.command('rm <node>').aliases(['delete', 'remove']).description('delete a childless node; its history and artifacts are archived')))
    .addHelpText('after', examples('org agents rm sales-sdr', 'org agents rm "SDR" -s "Acme sales"', 'org agents move sales-sdr-2 exec-coo && org agents rm sales-lead'))
    .action((roleId: string, flags: AgentsArgs) => run(ctx, { ...flags, roleId }, async () => (await runners()).runAgentsRm));

  withStructure(withConnection(agents.command('restore <role_id>').description('restore an archived node')))
    .option('--json', 'print the node as JSON')
    .addHelpText('after', examples('org agents list --archived', 'org agents restore sales-sdr'))
    .action((roleId: string, flags: AgentsArgs) => run(ctx, { ...flags, roleId }, async () => (await runners()).runAgentsRestore));

  withStructure(withConnection(agents.command('timeline <node>').description('what happened to a node (created, updated, moved, archived, restored) and who did it')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org agents timeline exec-cfo', 'org agents timeline sales-sdr -s "Acme sales"   # also for an archived node'))
    .action((node: string, flags: AgentsArgs) => run(ctx, { ...flags, node }, async () => (await import('../commands/history.js')).runAgentsTimeline));
}
