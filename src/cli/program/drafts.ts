/** Wiring of `org drafts …`: the review queue of learned drafts, and one-shot approve/reject. */
import type { Command } from 'commander';
import type { DraftDecisionArgs, DraftsArgs } from '../commands/drafts.js';
import { examples, run, withConnection, withStructure, type CommandContext } from './common.js';

const runners = () => import('../commands/drafts.js');

/** Registers `org drafts`. */
export function registerDrafts(program: Command, ctx: CommandContext): void {
  const drafts = program
    .command('drafts')
    .description('review draft skills agents learned: approve (→ complete), edit, reject (restorable) or skip')
    .addHelpText(
      'after',
      examples('org drafts', 'org drafts Demo', 'org drafts list Demo --json | jq -r ".[].slug"', 'org drafts approve plan-team-offsite', 'org drafts reject plan-team-offsite') +
        '\n\nKeys of the queue: a approve · e edit · r reject · u undo a reject · s skip · ↑/↓ move · q quit',
    );

  withStructure(withConnection(drafts.command('review [structure]', { isDefault: true }).description('the interactive review queue (lists the drafts when not in a terminal)')))
    .option('--json', 'list the drafts as JSON instead')
    .option('--home <dir>', 'home folder whose skills/ files are edited in place when present (env ORG_HOME)')
    .option('--remote', 'always edit through the API')
    .action((structure: string | undefined, flags: DraftsArgs) => run(ctx, { ...flags, ...(structure ? { structure } : {}) }, async () => (await runners()).runDrafts));

  withStructure(withConnection(drafts.command('list [structure]').description('list the drafts waiting for review')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org drafts list', 'org drafts list -s Demo --json', 'org drafts list Demo'))
    .action((structure: string | undefined, flags: DraftsArgs) => run(ctx, { ...flags, list: true, ...(structure ? { structure } : {}) }, async () => (await runners()).runDrafts));

  withStructure(withConnection(drafts.command('approve <slug>').description('approve a draft: it becomes complete and agents match it')))
    .addHelpText('after', examples('org drafts approve plan-team-offsite'))
    .action((slug: string, flags: DraftDecisionArgs) => run(ctx, { ...flags, slug }, async () => (await runners()).runDraftsApprove));

  withStructure(withConnection(drafts.command('reject <slug>').description('reject a draft: it is deleted (restore it with org skills restore)')))
    .addHelpText('after', examples('org drafts reject plan-team-offsite'))
    .action((slug: string, flags: DraftDecisionArgs) => run(ctx, { ...flags, slug }, async () => (await runners()).runDraftsReject));
}
