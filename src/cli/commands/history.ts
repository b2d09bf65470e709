/**
 * Runners of `org history` (a node's chat history, with who delegated a turn and what
 * each delegation of a turn brought back), `org log` (the workspace log of decisions,
 * milestones and delegations) and `org agents timeline` (changes to one node): what
 * happened, readable in a terminal or as JSON.
 */
import type { HistoryMessage } from '../../client/types.js';
import { invalid } from '../../core/errors.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { callLine, delegateCall, delegateOutcome, nodeName, outcomeLine } from '../delegation-print.js';
import { describeLearned, learnedOutcome } from '../learned.js';
import { commandLine } from '../quote.js';
import { findNode, findStructureDetail } from '../resolve.js';

/** Arguments of `org history`. */
export interface HistoryArgs extends ConnectionFlags {
  structure?: string;
  role?: string;
  limit?: number;
  /** Only messages older than this message id (paging). */
  before?: string;
  json?: boolean;
}

const when = (iso: string | null) => (iso ? iso.slice(0, 19).replace('T', ' ') : '—');

/** Where a user message came from: the node and run that delegated it, or its origin. */
function source(message: HistoryMessage, labelOf: (roleId: string) => string | undefined): string {
  if (message.delegated_by) return `  (delegated by ${nodeName(message.delegated_by.role_id, labelOf)}, run ${message.delegated_by.run_id})`;
  return message.origin ? `  (via ${message.origin})` : '';
}

/** The lines of one history message, oldest first; `labelOf` names the nodes of its structure. */
function messageLines(message: HistoryMessage, labelOf: (roleId: string) => string | undefined): string[] {
  if (message.sender === 'user') {
    const files = message.attachments.length ? `  [attached: ${message.attachments.map((a) => a.name).join(', ')}]` : '';
    return [`${when(message.created_at)}  › ${message.text}${files}${source(message, labelOf)}`];
  }
  const lines: string[] = [];
  const error = message.events.findLast((event) => event.type === 'error');
  if (message.status === 'complete') lines.push(`${when(message.completed_at)}  ✔ ${message.summary ?? ''}`);
  else if (message.status === 'error') lines.push(`${when(message.completed_at)}  ✖ ${error?.type === 'error' ? error.content.message : 'the turn failed'}`);
  else lines.push(`${when(message.created_at)}  … running (follow it with: ${commandLine('org', 'chat', '--run', message.run_id)})`);
  if (message.artifacts.length) lines.push(`                     artifacts: ${message.artifacts.join(', ')}`);
  for (const event of message.events) {
    const call = delegateCall(event);
    const delegated = delegateOutcome(event);
    if (call) lines.push(`                     ${callLine(call, labelOf)}${call.runId ? ` (run ${call.runId})` : ''}`);
    else if (delegated) lines.push(`                     ${outcomeLine(delegated, labelOf)}`);
    if (event.type !== 'skill_learned') continue;
    const outcome = learnedOutcome(event.content);
    if (outcome) for (const text of describeLearned(outcome)) lines.push(`                     ${text}`);
  }
  return lines;
}

/** Prints a node's recent chat history, oldest first (the API's order reversed). */
export async function runHistory(args: HistoryArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  if (!args.role) throw invalid('name the node: org history STRUCTURE ROLE (list the nodes with: org agents list)');
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  const node = findNode(detail, args.role);
  const messages = await client.history(detail.id, node.role_id, { ...(args.limit ? { limit: args.limit } : {}), ...(args.before ? { before: args.before } : {}) });
  if (args.json) {
    printJson(deps.output, messages);
    return 0;
  }
  if (messages.length === 0) {
    deps.output.out(`no messages with ${node.label} (${node.role_id}) yet; start with: ${commandLine('org', 'chat', detail.name, node.role_id)}`);
    return 0;
  }
  deps.output.out(`${detail.name} · ${node.label} (${node.role_id}) — ${messages.length} message(s), oldest first`);
  const labelOf = (roleId: string) => detail.agents.find((agent) => agent.role_id === roleId)?.label;
  for (const message of [...messages].reverse()) for (const line of messageLines(message, labelOf)) deps.output.out(line);
  const oldest = messages.at(-1)!;
  if (args.limit && messages.length === args.limit) deps.output.err(`older messages: ${commandLine('org', 'history', detail.name, node.role_id, '--before', oldest.id)}`);
  return 0;
}

/** Arguments of `org log`. */
export interface LogArgs extends ConnectionFlags {
  structure?: string;
  limit?: number;
  json?: boolean;
}

/** Prints the workspace log: decisions, milestones and delegations of every node, newest first. */
export async function runLog(args: LogArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  const { entries } = await client.log(detail.id, args.limit);
  printRows(deps.output, entries, {
    json: args.json,
    columns: [
      { header: 'when', value: (e) => when(e.created_at) },
      { header: 'node', value: (e) => e.role_id },
      { header: 'type', value: (e) => e.type },
      { header: 'title', value: (e) => (e.body && e.body !== e.title ? `${e.title} — ${e.body}` : e.title), max: 100 },
    ],
    empty: `nothing in the log of ${detail.name} yet (agents log decisions and milestones as they work)`,
  });
  return 0;
}

/** Arguments of `org agents timeline`. */
export interface TimelineArgs extends ConnectionFlags {
  structure?: string;
  node: string;
  json?: boolean;
}

/**
 * Prints what happened to a node, oldest first: created, updated (which fields), moved,
 * archived, restored, and who did it. An archived node is named by its role id.
 */
export async function runAgentsTimeline(args: TimelineArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const detail = await findStructureDetail(client, args.structure, deps.env);
  // A live node by role id or label; else the role id as given (the API also answers for archived nodes).
  const live = detail.agents.some((n) => n.role_id === args.node || n.label === args.node);
  const roleId = live ? findNode(detail, args.node).role_id : args.node;
  const { entries } = await client.timeline(detail.id, roleId);
  printRows(deps.output, entries, {
    json: args.json,
    columns: [
      { header: 'when', value: (e) => when(e.at) },
      { header: 'what', value: (e) => (e.type === 'updated' && e.fields?.length ? `updated ${e.fields.join(', ')}` : e.type) },
      { header: 'by', value: (e) => e.actor },
    ],
    empty: `nothing recorded for ${roleId} in ${detail.name}`,
  });
  return 0;
}
