/** Runners of `org keys create|list|revoke`: MCP node keys (the token is shown once, at creation). */
import { invalid, notFound } from '../../core/errors.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { commandLine } from '../quote.js';
import { findNode, findStructureDetail } from '../resolve.js';

/** Flags of the keys commands. */
export interface KeysArgs extends ConnectionFlags {
  structure?: string;
  node: string;
  json?: boolean;
}

async function target(args: KeysArgs, deps: CommandDeps) {
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  return { client, detail, node: findNode(detail, args.node) };
}

/** Mints an MCP key for a node and prints its token once. */
export async function runKeysCreate(args: KeysArgs & { label?: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const { client, detail, node } = await target(args, deps);
  const key = await client.createKey(detail.id, node.role_id, args.label);
  if (args.json) {
    printJson(deps.output, key);
    return 0;
  }
  deps.output.out(`created MCP key ${key.id} (${key.prefix}${key.hint}…) for ${node.label} (${node.role_id}) in ${detail.name}`);
  deps.output.out('');
  deps.output.out(`  ${key.token}`);
  deps.output.out('');
  deps.output.err('warning: this token is shown only once — store it now (a password manager or your MCP client’s config).');
  deps.output.err(`revoke it with: ${commandLine('org', 'keys', 'revoke', node.role_id, key.id.slice(0, 8), '-s', detail.id.slice(0, 8))}`);
  return 0;
}

/** Lists a node's keys (their token's start — prefix and hint — and labels, never tokens). */
export async function runKeysList(args: KeysArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const { client, detail, node } = await target(args, deps);
  const { keys } = await client.listKeys(detail.id, node.role_id);
  printRows(deps.output, keys, {
    json: args.json,
    columns: [
      { header: 'id', value: (k) => k.id },
      { header: 'token', value: (k) => `${k.prefix}${k.hint}…` },
      { header: 'label', value: (k) => k.label || '—', max: 30 },
      { header: 'created', value: (k) => k.created_at },
      { header: 'last used', value: (k) => k.last_used_at ?? 'never' },
    ],
    empty: `${node.role_id} has no MCP keys (create one with: ${commandLine('org', 'keys', 'create', node.role_id, '-s', detail.id.slice(0, 8))})`,
  });
  return 0;
}

/** Revokes a key (by id or id prefix): it stops working at once. */
export async function runKeysRevoke(args: KeysArgs & { key: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const { client, detail, node } = await target(args, deps);
  const { keys } = await client.listKeys(detail.id, node.role_id);
  const matches = keys.filter((k) => k.id === args.key || k.id.startsWith(args.key) || `${k.prefix}${k.hint}` === args.key || k.hint === args.key);
  if (matches.length === 0) throw notFound(`${node.role_id} has no key "${args.key}"`);
  if (matches.length > 1) throw invalid(`"${args.key}" matches several keys: ${matches.map((k) => k.id).join(', ')}`);
  await client.revokeKey(detail.id, node.role_id, matches[0]!.id);
  deps.output.out(`revoked ${matches[0]!.id}; its sessions and streams are closed`);
  return 0;
}
