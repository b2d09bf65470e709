/**
 * Delegations in a turn's events (API.md §10): the `delegate` tool call that hands a task
 * to another node (with the delegated run's id, or null when refused) and the result that
 * says how it ended. Pure, so it is unit-tested; `DelegateCard` shows them.
 */
import type { ChatEvent } from '../api/types';

/** A delegation as the chat shows it: the task handed over and, once it is back, its outcome. */
export interface DelegateBlock {
  kind: 'delegate';
  key: string;
  roleId: string;
  message: string;
  /** The delegated run; null when the delegation was refused. */
  runId: string | null;
  done: boolean;
  outcome?: DelegateOutcome;
  /** The delegating turn was stopped while this delegation was open (which stops the delegated run too). */
  stopped?: true;
}

/** How a delegation ended. */
export interface DelegateOutcome {
  status: 'complete' | 'error';
  summary: string;
  artifacts: string[];
  /** Why it was refused, as a kind (self, chain, depth, limit, cycle, …). */
  refused?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The delegation a `tool_call` announces (undefined for any other event). */
export function delegateCallOf(event: ChatEvent): { roleId: string; message: string; runId: string | null } | undefined {
  if (event.type !== 'tool_call' || event.content.tool !== 'delegate' || !isObject(event.content.args)) return undefined;
  const { role_id: roleId, message, run_id: runId } = event.content.args;
  return { roleId: String(roleId ?? ''), message: String(message ?? ''), runId: typeof runId === 'string' ? runId : null };
}

/** The outcome a `tool_result` of `delegate` carries, with the run and node it is about. */
export function delegateResultOf(event: ChatEvent): (DelegateOutcome & { roleId: string; runId: string | null }) | undefined {
  if (event.type !== 'tool_result' || event.content.tool !== 'delegate' || !isObject(event.content.result)) return undefined;
  const { role_id: roleId, run_id: runId, status, summary, artifacts, refused } = event.content.result;
  return {
    roleId: String(roleId ?? ''),
    runId: typeof runId === 'string' ? runId : null,
    status: status === 'complete' ? 'complete' : 'error',
    summary: String(summary ?? ''),
    artifacts: Array.isArray(artifacts) ? artifacts.map(String) : [],
    ...(typeof refused === 'string' ? { refused } : {}),
  };
}

/** Completes the open delegation that `event`'s result answers (same run, or same node when refused); false when none is open. */
export function closeDelegation(open: DelegateBlock[], result: NonNullable<ReturnType<typeof delegateResultOf>>): boolean {
  const at = open.findIndex((block) => block.runId === result.runId && block.roleId === result.roleId);
  if (at < 0) return false;
  const block = open[at]!;
  open.splice(at, 1);
  const { roleId: _role, runId: _run, ...outcome } = result;
  block.done = true;
  block.outcome = outcome;
  return true;
}
