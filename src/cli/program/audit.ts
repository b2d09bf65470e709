/** Wiring of `org audit`. */
import type { Command } from 'commander';
import type { AuditArgs } from '../commands/audit.js';
import { examples, positiveInt, run, withConnection, withStructure, type CommandContext } from './common.js';

/** Registers `org audit`. */
export function registerAudit(program: Command, ctx: CommandContext): void {
  withStructure(withConnection(program.command('audit').description('who changed what, when and from where: a structure’s audit log (owner), or --all (administrator)')))
    .option('--all', 'the whole instance’s log (administrator)')
    .option('--action <actions>', 'comma list of actions or prefixes, e.g. skill. or node.add,node.delete')
    .option('--actor <who>', 'an actor’s id or e-mail address')
    .option('--since <time>', 'only entries at or after this ISO 8601 time')
    .option('--until <time>', 'only entries before this ISO 8601 time')
    .option('--before <entry_id>', 'only entries older than this one (the next page)')
    .option('--limit <n>', 'how many, newest first (default 50, at most 500)', positiveInt)
    .option('--json', 'print the page as JSON (entries and next_before)')
    .addHelpText('after', examples('org audit', 'org audit --action skill. --since 2026-11-01T00:00:00Z', 'org audit --all --actor alice@example.com'))
    .action((flags: AuditArgs) => run(ctx, flags, async () => (await import('../commands/audit.js')).runAudit));
}
