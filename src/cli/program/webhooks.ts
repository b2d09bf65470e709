/** Wiring of `org webhooks add|list|remove|deliveries`. */
import type { Command } from 'commander';
import { WEBHOOK_EVENT_TYPES } from '../../core/schemas/webhook-events.js';
import type { WebhooksArgs } from '../commands/webhooks.js';
import { examples, positiveInt, run, withConnection, withStructure, type CommandContext } from './common.js';

const runners = () => import('../commands/webhooks.js');

/** Registers `org webhooks …`. */
export function registerWebhooks(program: Command, ctx: CommandContext): void {
  const webhooks = program
    .command('webhooks')
    .description('completion webhooks of a structure (owner): add, list, remove, deliveries')
    .addHelpText('after', examples('org webhooks add https://hooks.example.com/org --events run.completed,run.failed', 'org webhooks list', 'org webhooks deliveries 1a2b3c4d'));

  withStructure(withConnection(webhooks.command('add <url>').description('register a URL for signed event deliveries; the secret is printed once')))
    .option('--events <types>', `comma list of ${WEBHOOK_EVENT_TYPES.join(', ')} (default: all)`)
    .option('--description <text>', 'what the webhook is for')
    .option('--json', 'print JSON (includes the secret)')
    .addHelpText('after', examples('org webhooks add https://hooks.example.com/org', 'org webhooks add https://hooks.example.com/org --events run.failed -s Demo --json'))
    .action((url: string, flags: WebhooksArgs & { events?: string; description?: string }) => run(ctx, { ...flags, endpoint: url }, async () => (await runners()).runWebhooksAdd));

  withStructure(withConnection(webhooks.command('list').description('list the structure’s webhooks')))
    .option('--json', 'print JSON')
    .action((flags: WebhooksArgs) => run(ctx, flags, async () => (await runners()).runWebhooksList));

  withStructure(withConnection(webhooks.command('remove <webhook>').aliases(['rm', 'delete']).description('remove a webhook by id, id prefix or URL')))
    .action((webhook: string, flags: WebhooksArgs) => run(ctx, { ...flags, webhook }, async () => (await runners()).runWebhooksRemove));

  withStructure(withConnection(webhooks.command('deliveries <webhook>').description('a webhook’s deliveries: status, response codes, attempts')))
    .option('--limit <n>', 'how many, newest first (default 50)', positiveInt)
    .option('--json', 'print JSON')
    .action((webhook: string, flags: WebhooksArgs & { limit?: number }) => run(ctx, { ...flags, webhook }, async () => (await runners()).runWebhooksDeliveries));
}
