/**
 * The rules of API.md §10 that refuse a delegation, as pure functions: not the node
 * itself, not a node already in the chain, not deeper than the depth limit, and not a
 * delegation that would wait on its own chain (a cycle through other chains' turns and
 * the node queues). Each refusal says why in the user's words.
 */
import type { ChainLink, OpenRunLink, Refusal, RunLineage } from './types.js';
import { depthOf } from './types.js';

/** Role ids of a chain joined as `a → b → c`. */
export function chainText(roles: readonly string[]): string {
  return roles.join(' → ');
}

/**
 * The refusal of a delegation from the run of `lineage` to the node `target` by the
 * chain rules (self, chain, depth), or undefined when they allow it.
 */
export function chainRefusal(lineage: RunLineage, target: { nodeId: string; roleId: string }, maxDepth: number): Refusal | undefined {
  const chain = lineage.chain;
  const self = chain.at(-1)!;
  if (self.nodeId === target.nodeId) return { kind: 'self', message: `${self.roleId} cannot delegate to itself` };
  const roles = chain.map((link) => link.roleId);
  if (chain.some((link) => link.nodeId === target.nodeId)) {
    return {
      kind: 'chain',
      message: `${target.roleId} is already in this delegation chain (${chainText(roles)}); work cannot be handed back up a chain`,
    };
  }
  const depth = depthOf(lineage) + 1;
  if (depth > maxDepth) {
    return {
      kind: 'depth',
      message: `delegating to ${target.roleId} would go ${depth} hops below the root run (${chainText([...roles, target.roleId])}); the most is ${maxDepth} (ORG_DELEGATION_DEPTH)`,
    };
  }
  return undefined;
}

/**
 * Looks for a wait cycle: the new run on `target` would wait for every open run of that
 * node (it queues behind them); a run waits for its open delegated runs and for the
 * runs ahead of it in its node's queue. When the delegating run `from` is reachable,
 * the delegation would wait on itself: returns the role ids along the cycle, starting
 * and ending with `from`'s node. `open` lists each node's runs in queue order.
 */
export function findCycle(open: readonly OpenRunLink[], from: ChainLink, target: { nodeId: string; roleId: string }): string[] | undefined {
  const byNode = new Map<string, OpenRunLink[]>();
  const children = new Map<string, OpenRunLink[]>();
  const byId = new Map<string, OpenRunLink>();
  for (const link of open) {
    byId.set(link.runId, link);
    const queue = byNode.get(link.nodeId);
    if (queue) queue.push(link);
    else byNode.set(link.nodeId, [link]);
    if (link.parentRunId !== null) {
      const list = children.get(link.parentRunId);
      if (list) list.push(link);
      else children.set(link.parentRunId, [link]);
    }
  }
  // Breadth first from what the new run would wait on, remembering how each run was reached.
  const reachedFrom = new Map<string, string | null>();
  const pending: string[] = [];
  for (const link of byNode.get(target.nodeId) ?? []) {
    reachedFrom.set(link.runId, null);
    pending.push(link.runId);
  }
  while (pending.length > 0) {
    const runId = pending.shift()!;
    if (runId === from.runId) return cycleRoles(runId, reachedFrom, byId, from, target);
    const link = byId.get(runId);
    if (!link) continue;
    const queue = byNode.get(link.nodeId) ?? [];
    const ahead = queue.slice(0, queue.indexOf(link));
    for (const next of [...(children.get(runId) ?? []), ...ahead]) {
      if (reachedFrom.has(next.runId)) continue;
      reachedFrom.set(next.runId, runId);
      pending.push(next.runId);
    }
  }
  return undefined;
}

/** The roles along a found cycle: `from`, the target, the runs in between, `from` again. */
function cycleRoles(end: string, reachedFrom: Map<string, string | null>, byId: Map<string, OpenRunLink>, from: ChainLink, target: { roleId: string }): string[] {
  const path: string[] = [];
  for (let at: string | null | undefined = reachedFrom.get(end); at; at = reachedFrom.get(at)) path.unshift(byId.get(at)!.roleId);
  const roles = [from.roleId, target.roleId];
  for (const role of path) if (roles.at(-1) !== role) roles.push(role);
  if (roles.at(-1) !== from.roleId) roles.push(from.roleId);
  return roles;
}

/** The refusal of a delegation that would wait on its own chain. */
export function cycleRefusal(roles: readonly string[], target: string): Refusal {
  return {
    kind: 'cycle',
    message: `delegating to ${target} would wait on its own chain: ${chainText(roles)} (${target} is busy with work that is itself waiting on this run)`,
  };
}
