/** Wiring of `org keys create|list|revoke`. */
import type { Command } from 'commander';
import type { KeysArgs } from '../commands/keys.js';
import { examples, run, withConnection, withStructure, type CommandContext } from './common.js';

const runners = () => import('../commands/keys.js');

/** Registers `org keys …`. */
export function registerKeys(program: Command, ctx: CommandContext): void {
  const keys = program
    .command('keys')
    .description('MCP keys of a node: create (token shown once), list, revoke')
    .addHelpText('after', examples('org keys create exec-cfo --label "Claude desktop"', 'org keys list exec-cfo', 'org keys revoke exec-cfo 1a2b3c4d'));

  withStructure(withConnection(keys.command('create <node>').description('mint an MCP key for a node; the token is printed once')))
    .option('--label <label>', 'what the key is for')
    .option('--json', 'print JSON (includes the token)')
    .addHelpText('after', examples('org keys create exec-cfo --label "Claude desktop"', 'org keys create CFO -s Demo --json'))
    .action((node: string, flags: KeysArgs & { label?: string }) => run(ctx, { ...flags, node }, async () => (await runners()).runKeysCreate));

  withStructure(withConnection(keys.command('list <node>').description('list a node’s MCP keys (never their tokens)')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org keys list exec-cfo', 'org keys list exec-cfo --json'))
    .action((node: string, flags: KeysArgs) => run(ctx, { ...flags, node }, async () => (await runners()).runKeysList));

  withStructure(withConnection(keys.command('revoke <node> <key>').description('revoke a key by id or id prefix; it stops working at once')))
    .addHelpText('after', examples('org keys revoke exec-cfo 1a2b3c4d'))
    .action((node: string, key: string, flags: KeysArgs) => run(ctx, { ...flags, node, key }, async () => (await runners()).runKeysRevoke));
}
