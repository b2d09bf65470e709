/**
 * The lifecycle of one turn once it reaches the front of its node's queue: the node
 * turns `working`, the turn is enriched and handed to the node's runtime, whose events
 * go through the turn's event handling; a runtime that stops without a terminal event
 * (or throws) ends the run with `error`; the node turns `idle` after its last turn.
 */
import { OrgError } from '../errors.js';
import type { PeerInfo, Turn, TurnTools } from '../runtimes/types.js';
import type { DelegateResult } from '../schemas/delegation.js';
import type { Delegation, DelegationRequest } from './delegation/index.js';
import type { NodeRecord } from '../structures/types.js';
import type { AgentRuntime } from '../runtimes/types.js';
import type { ArtifactShelf } from './artifacts.js';
import { enrich } from './enrich.js';
import type { LiveRun } from './live-runs.js';
import type { RunObservers } from './observer.js';
import type { ChatActivity, ChatDirectory, ChatSkills, ChatStructure, RunCredentials } from './ports.js';
import type { Run } from './run.js';
import type { ChatStore, RunLocation } from './store.js';
import { TurnEvents } from './turn.js';
import type { EventInput, RelayedEvent } from './types.js';

/** What running a turn needs of the engine. */
export interface TurnRunnerDeps {
  directory: ChatDirectory;
  activity: ChatActivity;
  skills: ChatSkills;
  store: ChatStore;
  router: (node: NodeRecord) => AgentRuntime;
  observers: RunObservers;
  shelfOf(structureId: string, nodeId: string): ArtifactShelf;
  /** Starts a delegation of a running turn (the engine's delegator). */
  delegate(parent: RunLocation, request: DelegationRequest): Promise<Delegation>;
  /** Issues the run-scoped credentials of container turns (absent: none are handed out). */
  credentials?: RunCredentials;
  onError(error: unknown): void;
}

/** What a queued turn carries until it runs. */
export interface QueuedTurn {
  message: string;
  attachments: Turn['attachments'];
  /** The node's recent messages when the message arrived. */
  history: Turn['history'];
}

/** Runs the turn of `entry` (called when it is its node's turn); resolves once the run has ended. */
export async function runTurn(deps: TurnRunnerDeps, entry: LiveRun, queued: QueuedTurn): Promise<void> {
  const { run, appender } = entry;
  if (appender.sealed) return; // cancelled while queued
  // Turns of the node taken by other instances, earlier, go first.
  await deps.store.cluster?.awaitTurn(run.where, run.controller.signal);
  if (appender.sealed) return;
  const wasIdle = deps.activity.stateOf(run.nodeId) === 'idle';
  deps.activity.begin(run.nodeId, run.structureId, run.delegatedBy?.role_id);
  if (wasIdle) deps.observers.notify('nodeState', run.where, 'working');
  try {
    const structure = deps.directory.structure(run.structureId);
    const node = structure.agents.find((candidate) => candidate.id === run.nodeId);
    if (!node) throw new OrgError('not_found', `node ${run.roleId} was deleted before its turn started`);
    const turn = await enrich({ runId: run.id, structure, nodeId: run.nodeId, message: queued.message, attachments: queued.attachments, history: queued.history, skills: deps.skills });
    if (run.delegatedBy) Object.assign(turn, { delegated_by: run.delegatedBy, root_message: entry.lineage.rootMessage });
    const events = new TurnEvents(appender, deps.skills, {
      structureId: run.structureId,
      message: queued.message,
      ...(turn.explicit_skill && turn.skills.length > 0 ? { invokedSkill: turn.skills[0]!.slug } : {}),
      offeredSkills: turn.skills,
    });
    entry.turn = events;
    const runtime = deps.router(node);
    entry.runtime = runtime.name;
    deps.observers.notify('started', run, runtime.name);
    const trace = deps.observers.traceContext(run);
    if (trace) turn.trace_context = trace;
    const emit = Object.assign((event: EventInput, raw?: string, parsed?: unknown) => events.handle(event, raw, parsed), {
      batch: (relayed: RelayedEvent[]) => events.handleBatch(relayed),
    });
    await runtime.run(turn, emit, turnTools(deps, run), run.controller.signal);
    if (!appender.sealed) await events.handle({ type: 'error', content: { message: `the ${runtime.name} runtime ended without a complete or error event` } });
  } catch (error) {
    const message = error instanceof Error ? error.message : 'the turn failed';
    const event: EventInput = { type: 'error', content: { message } };
    await (entry.turn ? entry.turn.handle(event) : appender.append(event)).catch(deps.onError);
  } finally {
    await appender.idle();
    await run.done;
    deps.activity.end(run.nodeId, run.structureId);
    if (deps.activity.stateOf(run.nodeId) === 'idle') deps.observers.notify('nodeState', run.where, 'idle');
  }
}

/** The services a runtime may use during the turn of `run`. */
function turnTools(deps: TurnRunnerDeps, run: Run): TurnTools {
  const credentials = deps.credentials;
  let access: ReturnType<RunCredentials['issue']> | undefined;
  return {
    searchSkills: (query, limit = 5) => deps.skills.search(query, run.structureId, limit, { record: false }),
    readSkill: (slug) => deps.skills.readRaw(slug, run.structureId),
    writeArtifact: async (name, content, contentType) =>
      (await deps.shelfOf(run.structureId, run.nodeId).write(name, content, contentType, { runId: run.id, source: 'agent' })).name,
    delegate: async (roleId, message) => {
      const delegation = await deps.delegate(run.where, { roleId, message });
      return 'refusal' in delegation ? delegation.result : untilAborted(delegation.result, run, roleId, delegation.run.id);
    },
    listPeers: async () => peersOf(deps.directory.structure(run.structureId), run.nodeId, deps.activity),
    ...(credentials ? { delegationAccess: () => (access ??= credentials.issue(run.where)) } : {}),
  };
}

/** A delegation's result, or a cancelled one as soon as the delegating run is stopped (it need not wait any longer). */
function untilAborted(result: Promise<DelegateResult>, run: Run, roleId: string, runId: string): Promise<DelegateResult> {
  const signal = run.controller.signal;
  const stopped: DelegateResult = { run_id: runId, role_id: roleId, status: 'error', summary: 'cancelled', artifacts: [] };
  if (signal.aborted) return Promise.resolve(stopped);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(stopped);
    signal.addEventListener('abort', onAbort, { once: true });
    result.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The node `nodeId` and the other nodes of its structure, as `list_peers` answers. */
export function peersOf(structure: ChatStructure, nodeId: string, activity: Pick<ChatActivity, 'stateOf'>): { self: PeerInfo; peers: PeerInfo[] } {
  const roleOf = new Map(structure.agents.map((node) => [node.id, node.role_id]));
  const describe = (node: ChatStructure['agents'][number]): PeerInfo => ({
    role_id: node.role_id,
    label: node.label,
    state: activity.stateOf(node.id),
    parent: node.parent_id ? (roleOf.get(node.parent_id) ?? null) : null,
  });
  const self = structure.agents.find((node) => node.id === nodeId);
  if (!self) throw new OrgError('not_found', `node ${nodeId} is no longer in ${structure.name}`);
  return { self: describe(self), peers: structure.agents.filter((node) => node.id !== nodeId).map(describe) };
}

/** The workspace log entries of a batch: its decisions and milestones (none: undefined). */
export function logEntriesOf(run: Run, events: readonly EventInput[]): Parameters<ChatDirectory['appendLog']>[1] | undefined {
  const entries = [];
  for (const input of events) {
    if (input.type !== 'decision' && input.type !== 'milestone') continue;
    entries.push({
      type: input.type,
      title: input.content.title,
      ...(input.type === 'decision' ? { body: input.content.body } : {}),
      role_id: run.roleId,
      node_id: run.nodeId,
      run_id: run.id,
    });
  }
  return entries.length > 0 ? entries : undefined;
}
