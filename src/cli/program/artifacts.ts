/** Wiring of `org artifacts list|get`: a node's artifact shelf. */
import type { Command } from 'commander';
import type { ArtifactGetArgs, ArtifactsArgs } from '../commands/artifacts.js';
import { examples, run, withConnection, withStructure, type CommandContext } from './common.js';

const runners = () => import('../commands/artifacts.js');

/** Registers `org artifacts …`. */
export function registerArtifacts(program: Command, ctx: CommandContext): void {
  const artifacts = program
    .command('artifacts')
    .description('files on a node’s artifact shelf: run reports, attachments, what agents wrote')
    .addHelpText('after', examples('org artifacts list exec-cfo', 'org artifacts get exec-cfo run-report-1a2b3c4d.md', 'org artifacts get exec-cfo ledger.csv -o - | head'));

  withStructure(withConnection(artifacts.command('list <node>').description('list the artifacts of a node')))
    .option('--json', 'print JSON')
    .action((node: string, flags: ArtifactsArgs) => run(ctx, { ...flags, node }, async () => (await runners()).runArtifactsList));

  withStructure(withConnection(artifacts.command('get <node> <name>').description('download an artifact (to a file named like it, or -o)')))
    .option('-o, --output <file>', 'where to write it; - writes to stdout')
    .option('--force', 'overwrite an existing file')
    .action((node: string, name: string, flags: ArtifactGetArgs) => run(ctx, { ...flags, node, name }, async () => (await runners()).runArtifactsGet));
}
