/**
 * What the delegation rules reason about: a run's place in its chain (its lineage), the
 * open runs of a structure as a wait graph, and what a delegation answers.
 */
import type { DelegateResult, DelegationRefusal } from '../../schemas/delegation.js';

/** One run of a delegation chain. */
export interface ChainLink {
  runId: string;
  nodeId: string;
  roleId: string;
}

/** Where a run stands among delegations. */
export interface RunLineage {
  /** The runs from the root run down to this one, root first (a root run: itself alone). */
  chain: readonly ChainLink[];
  /** Who started the root run, when a person did (their user id): delegations act on their authority. */
  startedBy?: string;
  /** The message of the root run: what was first asked, which every delegated turn of the chain serves. */
  rootMessage: string;
}

/** An open run of a structure as the wait graph sees it (lists hold a node's runs in queue order). */
export interface OpenRunLink {
  runId: string;
  nodeId: string;
  roleId: string;
  /** The run that delegated it, or null for a root run. */
  parentRunId: string | null;
}

/** A delegation asked for by a running turn. */
export interface DelegationRequest {
  /** The target node's role id. */
  roleId: string;
  /** The task, as the target's user message. */
  message: string;
}

/** A refused delegation: why, in words (`summary`) and as a kind (`refused`). */
export interface Refusal {
  kind: DelegationRefusal;
  message: string;
}

/** What a delegation came to, as the delegating run's `tool_result` carries it. */
export type DelegationResult = DelegateResult;

/** The lineage of a root run with `message`. */
export function rootLineage(link: ChainLink, message: string, startedBy?: string): RunLineage {
  return { chain: [link], rootMessage: message, ...(startedBy ? { startedBy } : {}) };
}

/** The depth of a run: how many hops below its root (a root is 0). */
export function depthOf(lineage: RunLineage): number {
  return lineage.chain.length - 1;
}

/**
 * A note left through a shared store for the instance that runs a delegating turn: a
 * delegation another instance started (its stream shows it and follows the run) or
 * refused (its stream shows why).
 */
export type DelegationNote =
  | { kind: 'started'; role_id: string; message: string; run_id: string }
  | { kind: 'refused'; role_id: string; message: string; refused: Refusal['kind']; summary: string };
