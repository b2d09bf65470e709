/** Runner of `org audit`: who changed what in a structure (owner), or in the whole instance (`--all`, administrator). */
import type { AuditEntry, AuditPage, AuditQuery } from '../../client/types.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printTable } from '../format.js';
import { findStructure } from '../resolve.js';

/** Flags of `org audit`. */
export interface AuditArgs extends ConnectionFlags {
  structure?: string;
  /** The whole instance's log (administrator) instead of one structure's. */
  all?: boolean;
  action?: string;
  actor?: string;
  since?: string;
  until?: string;
  before?: string;
  limit?: number;
  json?: boolean;
}

/** Who acted, for a table cell. */
function actorCell(entry: AuditEntry): string {
  if (entry.actor.email) return entry.actor.email;
  if (entry.actor.kind === 'mcp') return `key ${entry.actor.id.slice(0, 8)}`;
  return entry.actor.kind === 'admin' ? 'administrator' : entry.actor.kind;
}

/** Prints one page of the audit log (newest first), and how to read the next one. */
export async function runAudit(args: AuditArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const query: AuditQuery = {
    ...(args.action !== undefined ? { action: args.action } : {}),
    ...(args.actor !== undefined ? { actor: args.actor } : {}),
    ...(args.since !== undefined ? { since: args.since } : {}),
    ...(args.until !== undefined ? { until: args.until } : {}),
    ...(args.before !== undefined ? { before: args.before } : {}),
    ...(args.limit !== undefined ? { limit: args.limit } : {}),
  };
  let page: AuditPage;
  let where: string;
  if (args.all) {
    page = await client.instanceAudit(query);
    where = 'the instance';
  } else {
    const structure = await findStructure(client, args.structure, deps.env);
    page = await client.structureAudit(structure.id, query);
    where = structure.name;
  }
  if (args.json) {
    printJson(deps.output, page);
    return 0;
  }
  printTable(
    deps.output,
    page.entries,
    [
      { header: 'at', value: (e) => e.at },
      { header: 'action', value: (e) => e.action },
      { header: 'by', value: actorCell, max: 40 },
      { header: 'target', value: (e) => (e.target ? `${e.target.type} ${e.target.id}` : '—'), max: 50 },
      { header: 'from', value: (e) => `${e.ip}${e.user_agent ? ` ${e.user_agent}` : ''}`, max: 40 },
      { header: 'request', value: (e) => e.request_id, max: 40 },
    ],
    `no audit entries for ${where}${Object.keys(query).length > 0 ? ' match these filters' : ''}`,
  );
  if (page.next_before) deps.output.err(`more: add --before ${page.next_before}`);
  return 0;
}
