/** Runners of `org webhooks add|list|remove|deliveries`: completion webhooks of a structure (owner). */
import { invalid, notFound } from '../../core/errors.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../core/schemas/webhooks.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { findStructureDetail } from '../resolve.js';

/** Flags of the webhooks commands. */
export interface WebhooksArgs extends ConnectionFlags {
  structure?: string;
  json?: boolean;
}

async function target(args: WebhooksArgs, deps: CommandDeps) {
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  return { client, detail };
}

/** The event types of `--events a,b` (all of them when absent). */
export function parseEvents(value: string | undefined): WebhookEventType[] {
  if (value === undefined) return [...WEBHOOK_EVENT_TYPES];
  const events = value.split(',').map((event) => event.trim()).filter(Boolean);
  const unknown = events.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
  if (unknown.length > 0 || events.length === 0) throw invalid(`--events takes a comma list of ${WEBHOOK_EVENT_TYPES.join(', ')}; got "${value}"`);
  return events as WebhookEventType[];
}

/**
 * Registers a webhook and prints its signing secret once. `endpoint` is the receiver's URL
 * (`url` is the server's, from the connection flags).
 */
export async function runWebhooksAdd(args: WebhooksArgs & { endpoint: string; events?: string; description?: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const events = parseEvents(args.events);
  const { client, detail } = await target(args, deps);
  const created = await client.createWebhook(detail.id, { url: args.endpoint, events, ...(args.description ? { description: args.description } : {}) });
  if (args.json) {
    printJson(deps.output, created);
    return 0;
  }
  deps.output.out(`added webhook ${created.id} for ${detail.name}: ${created.url} (${created.events.join(', ')})`);
  deps.output.out('');
  deps.output.out(`  signing secret: ${created.secret}`);
  deps.output.out('');
  deps.output.err('warning: the secret is shown only once — store it where your receiver verifies signatures (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).');
  return 0;
}

/** Lists a structure's webhooks. */
export async function runWebhooksList(args: WebhooksArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const { client, detail } = await target(args, deps);
  const { webhooks } = await client.listWebhooks(detail.id);
  printRows(deps.output, webhooks, {
    json: args.json,
    columns: [
      { header: 'id', value: (w) => w.id },
      { header: 'url', value: (w) => w.url, max: 50 },
      { header: 'events', value: (w) => w.events.join(','), max: 60 },
      { header: 'created', value: (w) => w.created_at },
    ],
    empty: `${detail.name} has no webhooks (add one with: org webhooks add <url>)`,
  });
  return 0;
}

async function findWebhook(args: WebhooksArgs & { webhook: string }, deps: CommandDeps) {
  const { client, detail } = await target(args, deps);
  const { webhooks } = await client.listWebhooks(detail.id);
  const matches = webhooks.filter((w) => w.id === args.webhook || w.id.startsWith(args.webhook) || w.url === args.webhook);
  if (matches.length === 0) throw notFound(`${detail.name} has no webhook "${args.webhook}"`);
  if (matches.length > 1) throw invalid(`"${args.webhook}" matches several webhooks: ${matches.map((w) => w.id).join(', ')}`);
  return { client, detail, webhook: matches[0]! };
}

/** Removes a webhook (by id, id prefix or URL). */
export async function runWebhooksRemove(args: WebhooksArgs & { webhook: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const { client, detail, webhook } = await findWebhook(args, deps);
  await client.removeWebhook(detail.id, webhook.id);
  deps.output.out(`removed webhook ${webhook.id} (${webhook.url}); its pending deliveries are dropped`);
  return 0;
}

/** Prints a webhook's deliveries log, newest first. */
export async function runWebhooksDeliveries(args: WebhooksArgs & { webhook: string; limit?: number }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const { client, detail, webhook } = await findWebhook(args, deps);
  const { deliveries } = await client.webhookDeliveries(detail.id, webhook.id, args.limit !== undefined ? { limit: args.limit } : {});
  printRows(deps.output, deliveries, {
    json: args.json,
    columns: [
      { header: 'id', value: (d) => d.id },
      { header: 'event', value: (d) => d.event_type },
      { header: 'status', value: (d) => d.status },
      { header: 'code', value: (d) => (d.response_code === null ? (d.attempts.at(-1)?.error ?? '—') : String(d.response_code)) },
      { header: 'attempts', value: (d) => String(d.attempts.length) },
      { header: 'created', value: (d) => d.created_at },
      { header: 'next attempt', value: (d) => d.next_attempt_at ?? '—' },
    ],
    empty: `webhook ${webhook.id} has no deliveries yet`,
  });
  return 0;
}
