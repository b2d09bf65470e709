/**
 * Delegation in the local runtime (API.md §10): a playbook step holding lines
 * `Delegate to <role_id>.` hands the step to those nodes, in order. Each receives
 * `<step title>: <the step's other lines>`, a blank line and `Request: <the root run's
 * message>`; the runtime waits for each turn, and the step's milestone carries what came
 * back. The run report says who did what.
 */
import type { DelegateResult } from '../schemas/delegation.js';
import type { PeerInfo, Turn, TurnSkill, TurnTools } from './types.js';
import { excerpt } from './util.js';

/** A line that hands the step to a node: `Delegate to <role_id>.` (a list bullet and bold allowed). */
const DELEGATE_LINE = /^\s*(?:[-*]\s+)?(?:\*\*)?Delegate to ([a-z0-9]+(?:-[a-z0-9]+)+)\.?(?:\*\*)?\s*$/i;

/** What a step asks of other nodes: their role ids in order, and its other lines. */
export interface StepDelegation {
  roles: string[];
  /** The step's text without its delegation lines. */
  instructions: string;
}

/** The delegations of a step's text (none: `roles` is empty). */
export function stepDelegation(text: string): StepDelegation {
  const roles: string[] = [];
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const match = DELEGATE_LINE.exec(line);
    if (match) roles.push(match[1]!.toLowerCase());
    else kept.push(line);
  }
  return { roles, instructions: kept.join('\n').trim() };
}

/** The message a delegated step sends: its title and other lines, then the request it serves. */
export function delegatedMessage(step: Pick<TurnSkill['steps'][number], 'title'>, instructions: string, request: string): string {
  const task = instructions ? `${step.title}: ${instructions}` : step.title;
  return `${task}\n\nRequest: ${request}`;
}

/** One delegation of a step, once it came back. */
export interface DelegatedWork {
  step: { n: number; title: string };
  roleId: string;
  /** The node's label, when it is a node of the structure. */
  label: string | undefined;
  result: DelegateResult;
}

/** Hands a step to each of its nodes in order, waiting for each; stops early when the turn is cancelled. */
export async function delegateStep(turn: Turn, step: TurnSkill['steps'][number], asked: StepDelegation, tools: TurnTools, signal: AbortSignal): Promise<DelegatedWork[]> {
  const peers = await tools.listPeers().catch(() => undefined);
  const labelOf = (roleId: string) => [...(peers?.peers ?? []), ...(peers ? [peers.self] : [])].find((peer: PeerInfo) => peer.role_id === roleId)?.label;
  const message = delegatedMessage(step, asked.instructions, turn.root_message ?? turn.message);
  const done: DelegatedWork[] = [];
  for (const roleId of asked.roles) {
    if (signal.aborted) break;
    const result = await tools.delegate(roleId, message);
    done.push({ step: { n: step.n, title: step.title }, roleId, label: labelOf(roleId), result });
  }
  return done;
}

/** Who a delegation went to, as people read it: `Chief Financial Officer (exec-cfo)`. */
function who(work: DelegatedWork): string {
  return work.label ? `${work.label} (${work.roleId})` : work.roleId;
}

/** The milestone title of a delegated step: the step and what each node answered. */
export function delegatedMilestone(title: string, works: readonly DelegatedWork[]): string {
  const outcomes = works.map((work) => (work.result.status === 'complete' ? `${who(work)}: ${excerpt(work.result.summary, 160)}` : `${who(work)} could not: ${excerpt(work.result.summary, 160)}`));
  return `${title} — ${outcomes.join('; ')}`;
}

/** The run report's lines for a delegated step. */
export function delegatedReportLines(works: readonly DelegatedWork[]): string[] {
  return works.flatMap((work) => [
    `Delegated to ${who(work)}${work.result.run_id ? `, run ${work.result.run_id}` : ''}: ${work.result.status === 'complete' ? 'done' : 'not done'} — ${work.result.summary}`,
    ...(work.result.artifacts.length > 0 ? [`Artifacts on ${work.roleId}'s shelf: ${work.result.artifacts.join(', ')}`] : []),
    '',
  ]);
}

/** The report's "Who did what": this node's own steps, and each delegated step with who did it. */
export function whoDidWhat(turn: Turn, steps: readonly { n: number; title: string }[], works: readonly DelegatedWork[]): string[] {
  const delegated = new Set(works.map((work) => work.step.n));
  const own = steps.filter((step) => !delegated.has(step.n)).map((step) => `Step ${step.n}`);
  const lines = ['## Who did what', ''];
  if (own.length > 0) lines.push(`- ${turn.node.label} (${turn.node.role_id}): ${own.join(', ')}`);
  for (const work of works) {
    lines.push(`- ${who(work)}: Step ${work.step.n} (${work.step.title}) — ${work.result.status === 'complete' ? work.result.summary : `not done: ${work.result.summary}`}`);
  }
  return [...lines, ''];
}
