/**
 * Delegations as `org chat` shows them (API.md §10): a `delegate` tool call is one line
 * `→ <label> (<role_id>): <message>`, its result `← <label> (<role_id>): ✔ <summary>` (or
 * `✖ <why>`), and with `--follow` the delegated run's own events, indented under it.
 */
import type { ChatEvent } from '../client/types.js';
import { excerpt } from './format.js';

/** A delegation as its `tool_call` announces it. */
export interface DelegateCall {
  roleId: string;
  message: string;
  /** The delegated run (null when refused). */
  runId: string | null;
}

/** A delegation's outcome as its `tool_result` carries it. */
export interface DelegateOutcome {
  roleId: string;
  runId: string | null;
  status: 'complete' | 'error';
  summary: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The delegation a `tool_call` event announces, if it is one. */
export function delegateCall(event: ChatEvent): DelegateCall | undefined {
  if (event.type !== 'tool_call' || event.content.tool !== 'delegate' || !isObject(event.content.args)) return undefined;
  const { role_id: roleId, message, run_id: runId } = event.content.args;
  return { roleId: String(roleId ?? ''), message: String(message ?? ''), runId: typeof runId === 'string' ? runId : null };
}

/** The delegation outcome a `tool_result` event carries, if it is one. */
export function delegateOutcome(event: ChatEvent): DelegateOutcome | undefined {
  if (event.type !== 'tool_result' || event.content.tool !== 'delegate' || !isObject(event.content.result)) return undefined;
  const { role_id: roleId, run_id: runId, status, summary } = event.content.result;
  return { roleId: String(roleId ?? ''), runId: typeof runId === 'string' ? runId : null, status: status === 'complete' ? 'complete' : 'error', summary: String(summary ?? '') };
}

/** Names a node as people read it: `Chief Financial Officer (exec-cfo)`, or its role id when its label is unknown. */
export function nodeName(roleId: string, labelOf?: (roleId: string) => string | undefined): string {
  const label = labelOf?.(roleId);
  return label ? `${label} (${roleId})` : roleId;
}

/** The line of a delegation being handed over. */
export function callLine(call: DelegateCall, labelOf?: (roleId: string) => string | undefined): string {
  return `→ ${nodeName(call.roleId, labelOf)}: ${excerpt(call.message, 200)}`;
}

/** The line of a delegation's outcome. */
export function outcomeLine(outcome: DelegateOutcome, labelOf?: (roleId: string) => string | undefined): string {
  return `← ${nodeName(outcome.roleId, labelOf)}: ${outcome.status === 'complete' ? '✔' : '✖'} ${excerpt(outcome.summary, 300)}`;
}
