/** Wiring of `org structures list|show|create|rename|delete|restore`. */
import type { Command } from 'commander';
import type { StructuresArgs, StructuresCreateArgs, StructuresPickArgs, StructuresRenameArgs } from '../commands/structures.js';
import { examples, run, withConnection, type CommandContext } from './common.js';

const runners = () => import('../commands/structures.js');

/** Registers `org structures …`. */
export function registerStructures(program: Command, ctx: CommandContext): void {
  const structures = program
    .command('structures')
    .description('structures (trees of agent nodes): list, show, create, rename, delete, restore')
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

  withConnection(structures.command('rename <structure> <name>').description('rename a structure (owner)'))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org structures rename Demo "Finance team"'))
    .action((structure: string, name: string, flags: StructuresRenameArgs) => run(ctx, { ...flags, structure, name }, async () => (await runners()).runStructuresRename));

  withConnection(structures.command('delete <structure>').description('delete a structure into the archive (owner); restore brings it back'))
    .addHelpText('after', examples('org structures delete Demo'))
    .action((structure: string, flags: StructuresPickArgs) => run(ctx, { ...flags, structure }, async () => (await runners()).runStructuresDelete));

  withConnection(structures.command('restore <structure>').description('restore an archived structure (owner), by name or id'))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org structures restore Demo'))
    .action((structure: string, flags: StructuresPickArgs) => run(ctx, { ...flags, structure }, async () => (await runners()).runStructuresRestore));
}
