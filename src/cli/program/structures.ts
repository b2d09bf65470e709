/** Wiring of `org structures list|show|create`. */
import type { Command } from 'commander';
import type { StructuresArgs, StructuresCreateArgs } from '../commands/structures.js';
import { examples, run, withConnection, type CommandContext } from './common.js';

const runners = () => import('../commands/structures.js');

/** Registers `org structures …`. */
export function registerStructures(program: Command, ctx: CommandContext): void {
  const structures = program
    .command('structures')
    .description('structures (trees of agent nodes): list, show, create')
    .addHelpText('after', examples('org structures list', 'org structures show Demo', 'org structures create "Acme sales" --template sales-team'));

  withConnection(structures.command('list').description('list the structures you can access'))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org structures list', 'org structures list --json | jq -r ".[].id"'))
    .action((flags: StructuresArgs) => run(ctx, flags, async () => (await runners()).runStructuresList));

  withConnection(structures.command('show [structure]').description('draw a structure’s node tree with labels and states'))
    .option('--json', 'print the structure detail as JSON')
    .addHelpText('after', examples('org structures show', 'org structures show Demo', 'org structures show 6f0c1a2b --json'))
    .action((structure: string | undefined, flags: StructuresArgs) => run(ctx, { ...flags, ...(structure ? { structure } : {}) }, async () => (await runners()).runStructuresShow));

  withConnection(structures.command('create <name>').description('create a structure from a template (default blank); you become its owner'))
    .option('-t, --template <template>', 'exec-team, sales-team, research-lab, personal or blank (default)')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org structures create "Acme exec" --template exec-team', 'org structures create Sandbox'))
    .action((name: string, flags: StructuresCreateArgs) => run(ctx, { ...flags, name }, async () => (await runners()).runStructuresCreate));
}
