/**
 * The delegation core (API.md §10), one place for every runtime and surface: a running
 * turn of node A hands `{role_id, message}` to node B of the same structure. The rules
 * are checked first (rules.ts, the per-turn limit and the authority of the person who
 * started the chain); B's turn is then an ordinary turn started through the engine's
 * `send`, and A's stream shows `tool_call {tool: "delegate"}` once B's run exists and
 * `tool_result` when it ends. A refused delegation shows both at once, with `run_id:
 * null` and why. Checks and start are one step per structure on this instance, so two
 * delegations never pass the cycle check against each other.
 *
 * When A's turn runs on another instance (a container's delegation that reached this
 * one), the store carries a note to that instance, which shows it in A's stream.
 */
import { DELEGATE_TOOL, DELEGATION_MESSAGE_MAX, DELEGATIONS_PER_TURN, type DelegateResult } from '../../schemas/delegation.js';
import { KeyedMutex } from '../../storage/index.js';
import { isRoleId } from '../../util/patterns.js';
import { excerpt } from '../../util/text.js';
import type { DecodedAttachment } from '../artifacts.js';
import type { LiveRun, LiveRuns } from '../live-runs.js';
import type { ChatDirectory } from '../ports.js';
import type { Run } from '../run.js';
import type { RunLocation, SharedDelegations } from '../store.js';
import type { EventInput, MessageAuthor } from '../types.js';
import { chainRefusal, cycleRefusal, findCycle } from './rules.js';
import type { DelegationNote, DelegationRequest, Refusal, RunLineage } from './types.js';

/** What the engine's `send` needs to start a delegated turn. */
export interface DelegatedSend {
  structureId: string;
  roleId: string;
  message: string;
  attachments?: DecodedAttachment[];
  origin: string;
  /** The delegating node, as the author of the message. */
  author: MessageAuthor;
  /** The lineage of the delegating run: the new run's is this chain plus itself. */
  delegatedFrom: RunLineage;
  /** The delegating run's trace context, so that the new run's span is its child. */
  traceContext?: Readonly<Record<string, string>>;
}

/** What the delegator asks of the engine. */
export interface DelegatorDeps {
  runs: LiveRuns;
  directory: Pick<ChatDirectory, 'structure' | 'appendLog'>;
  /** Present when instances share the store. */
  shared?: SharedDelegations;
  /** Most hops below the root run (`ORG_DELEGATION_DEPTH`). */
  maxDepth: number;
  /** Why the person who started a chain may not hand work on in a structure now (undefined: they may). */
  authority?: (structureId: string, userId: string) => Promise<string | undefined> | string | undefined;
  send(input: DelegatedSend): Promise<Run>;
  /** A run wherever it executes, to wait for its end (undefined when unknown). */
  follow(runId: string): Promise<Run | undefined>;
  cancel(runId: string, reason: string, by?: string): Promise<void>;
  /** Appends an event to a live run's stream. */
  emit(entry: LiveRun, event: EventInput): Promise<void>;
  /** The trace context of a live run, for its delegated runs. */
  traceContext(run: Run): Readonly<Record<string, string>> | undefined;
  /** Hears each delegation, started or refused (metrics). */
  observed(parent: RunLocation, outcome: 'started' | Refusal['kind']): void;
  onError(error: unknown): void;
}

/** A delegation that started (its run, and its result once it ends) or was refused. */
export type Delegation = { run: Run; result: Promise<DelegateResult> } | { refusal: Refusal; result: DelegateResult };

/** Starts and reports delegations. */
export class Delegator {
  private readonly lock = new KeyedMutex();

  constructor(private readonly deps: DelegatorDeps) {}

  /**
   * Delegates `request` from the run at `parent` (on this instance or, with a shared
   * store, another). Its stream shows the delegation whatever the outcome; extra
   * `attachments` go with the message (a container's request may carry some).
   */
  async delegate(parent: RunLocation, request: DelegationRequest, attachments?: DecodedAttachment[]): Promise<Delegation> {
    const decided = await this.lock.run(parent.structureId, () => this.decide(parent, request, attachments));
    const entry = this.deps.runs.entry(parent.runId);
    let outcome: { run: Run } | { refusal: Refusal };
    try {
      outcome = 'refusal' in decided ? decided : { run: await decided.started };
    } catch (error) {
      await this.giveBack(parent.runId, entry);
      outcome = refuse('failed', `the delegated turn could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
    if ('refusal' in outcome) {
      const result = refusedResult(request.roleId, outcome.refusal);
      this.deps.observed(parent, outcome.refusal.kind);
      if (outcome.refusal.kind !== 'ended') {
        this.report(parent, entry, { kind: 'refused', role_id: request.roleId, message: request.message, refused: outcome.refusal.kind, summary: outcome.refusal.message })?.catch(this.deps.onError);
      }
      return { refusal: outcome.refusal, result };
    }
    const child = outcome.run;
    this.deps.observed(parent, 'started');
    const shown = this.report(parent, entry, { kind: 'started', role_id: child.roleId, message: request.message, run_id: child.id });
    if (entry ? entry.appender.sealed : !(await this.deps.shared?.lineage(parent.runId))) {
      // The delegating run ended while this one was starting: nothing waits for it.
      this.deps.cancel(child.id, 'cancelled', `delegation:${parent.roleId}`).catch(() => undefined);
    }
    return { run: child, result: shown ?? child.done.then(() => resultOf(child)) };
  }

  /**
   * Shows the notes another instance left for runs of this one: each delegation in the
   * delegating run's stream, a started one followed to its end.
   */
  receive(runId: string, notes: readonly DelegationNote[]): void {
    const entry = this.deps.runs.entry(runId);
    if (!entry) return;
    for (const note of notes) this.show(entry, note)?.catch(this.deps.onError);
  }

  /** Cancels the open runs `runId` delegated (and so, in turn, theirs). */
  async cancelBelow(runId: string, by: string | undefined, local: Iterable<string> = []): Promise<void> {
    const children = new Set(local);
    if (this.deps.shared) for (const child of await this.deps.shared.openChildren(runId)) children.add(child);
    await Promise.all([...children].map((child) => this.deps.cancel(child, 'cancelled', by).catch(() => undefined)));
  }

  private async decide(parent: RunLocation, request: DelegationRequest, attachments?: DecodedAttachment[]): Promise<{ started: Promise<Run> } | { refusal: Refusal }> {
    const entry = this.deps.runs.entry(parent.runId);
    if (entry?.appender.sealed) return refuse('ended', `the run of ${parent.roleId} has ended; it can no longer delegate`);
    const lineage = entry?.lineage ?? (await this.deps.shared?.lineage(parent.runId));
    if (!lineage) return refuse('ended', `the run of ${parent.roleId} has ended; it can no longer delegate`);
    const invalid = invalidRequest(request);
    if (invalid) return refuse('invalid', invalid);
    const structure = this.deps.directory.structure(parent.structureId);
    const target = structure.agents.find((node) => node.role_id === request.roleId);
    if (!target) return refuse('unknown_role', `there is no node ${request.roleId} in ${structure.name}`);
    const byChain = chainRefusal(lineage, { nodeId: target.id, roleId: target.role_id }, this.deps.maxDepth);
    if (byChain) return { refusal: byChain };
    const denied = lineage.startedBy ? await this.deps.authority?.(parent.structureId, lineage.startedBy) : undefined;
    if (denied) return refuse('authority', denied);
    const open = this.deps.shared ? await this.deps.shared.openRuns(parent.structureId) : this.deps.runs.openLinks(parent.structureId);
    const cycle = findCycle(open, lineage.chain.at(-1)!, { nodeId: target.id, roleId: target.role_id });
    if (cycle) return { refusal: cycleRefusal(cycle, target.role_id) };
    if (!(await this.take(parent.runId, entry))) {
      return refuse('limit', `this turn has already delegated ${DELEGATIONS_PER_TURN} times, the most one turn may`);
    }
    // The new run takes its place among the open runs as `send` is called: on one instance
    // the next delegation's checks see it without waiting for its record (a shared store
    // sees it once recorded, so there the record is awaited here).
    const started = this.deps.send({
      structureId: parent.structureId,
      roleId: target.role_id,
      message: request.message,
      ...(attachments?.length ? { attachments } : {}),
      origin: `delegation:${parent.roleId}`,
      author: { kind: 'node', id: parent.roleId, label: structure.agents.find((node) => node.id === parent.nodeId)?.label ?? parent.roleId },
      delegatedFrom: lineage,
      ...this.traceOf(entry),
    });
    // Handled where it is awaited, after the lock; marked handled here meanwhile.
    started.catch(() => undefined);
    if (this.deps.shared) await started.catch(() => undefined);
    return { started };
  }

  private traceOf(entry: LiveRun | undefined): { traceContext?: Readonly<Record<string, string>> } {
    const carrier = entry ? this.deps.traceContext(entry.run) : undefined;
    return carrier ? { traceContext: carrier } : {};
  }

  /** Takes one of the turn's delegations: from the count the store shares, or the run's own. */
  private async take(runId: string, entry: LiveRun | undefined): Promise<boolean> {
    if (this.deps.shared) {
      if (!(await this.deps.shared.take(runId, DELEGATIONS_PER_TURN))) return false;
    } else if (!entry || entry.delegations >= DELEGATIONS_PER_TURN) return false;
    if (entry) entry.delegations++;
    return true;
  }

  private async giveBack(runId: string, entry: LiveRun | undefined): Promise<void> {
    if (this.deps.shared) await this.deps.shared.giveBack(runId);
    if (entry) entry.delegations--;
  }

  /**
   * Shows a delegation in the delegating run's stream: here, or through a note to its
   * instance. For a started one shown here, resolves with its result once the stream
   * shows it (so the delegating turn goes on after its `tool_result`).
   */
  private report(parent: RunLocation, entry: LiveRun | undefined, note: DelegationNote): Promise<DelegateResult> | undefined {
    if (entry) return this.show(entry, note);
    this.deps.shared?.note(parent.runId, note).catch(this.deps.onError);
    return undefined;
  }

  private show(entry: LiveRun, note: DelegationNote): Promise<DelegateResult> | undefined {
    const run = entry.run;
    const emit = (event: EventInput) => this.deps.emit(entry, event).catch(this.deps.onError);
    const runId = note.kind === 'started' ? note.run_id : null;
    emit({ type: 'tool_call', content: { tool: DELEGATE_TOOL, args: { role_id: note.role_id, message: note.message, run_id: runId } } }).catch(this.deps.onError);
    const logged = {
      type: 'delegation' as const,
      title: note.kind === 'started' ? `Delegated to ${note.role_id}` : `Delegation to ${note.role_id} refused`,
      body: note.kind === 'started' ? excerpt(note.message, 2000) : note.summary,
      role_id: run.roleId,
      node_id: run.nodeId,
      run_id: run.id,
      delegation: { role_id: note.role_id, run_id: runId },
    };
    this.deps.directory.appendLog(run.structureId, [logged]).catch(this.deps.onError);
    if (note.kind === 'refused') {
      emit({ type: 'tool_result', content: { tool: DELEGATE_TOOL, result: refusedResult(note.role_id, { kind: note.refused, message: note.summary }) } }).catch(this.deps.onError);
      return undefined;
    }
    entry.children.add(note.run_id);
    entry.delegated.add(note.run_id);
    const ended = this.deps.follow(note.run_id).then(async (child) => {
      await child?.done;
      entry.children.delete(note.run_id);
      const result: DelegateResult = child ? resultOf(child) : { run_id: note.run_id, role_id: note.role_id, status: 'error', summary: 'the delegated run could not be followed', artifacts: [] };
      await emit({ type: 'tool_result', content: { tool: DELEGATE_TOOL, result } });
      return result;
    });
    return ended.catch((error: unknown): DelegateResult => {
      this.deps.onError(error);
      return { run_id: note.run_id, role_id: note.role_id, status: 'error', summary: 'the delegated run could not be followed', artifacts: [] };
    });
  }
}

function refuse(kind: Refusal['kind'], message: string): { refusal: Refusal } {
  return { refusal: { kind, message } };
}

/** What is wrong with a request's shape, in the delegating agent's words (undefined: nothing). */
function invalidRequest(request: DelegationRequest): string | undefined {
  if (typeof request.roleId !== 'string' || !isRoleId(request.roleId)) return `"${excerpt(String(request.roleId ?? ''), 64)}" is not a role id (<team>-<role>, e.g. exec-cfo)`;
  if (typeof request.message !== 'string' || !request.message.trim()) return 'the task for the delegated node is empty';
  if (request.message.length > DELEGATION_MESSAGE_MAX) return `the task is ${request.message.length} characters; the most is ${DELEGATION_MESSAGE_MAX}`;
  return undefined;
}

/** The `tool_result` of a refused delegation. */
export function refusedResult(roleId: string, refusal: Refusal): DelegateResult {
  return { run_id: null, role_id: roleId, status: 'error', summary: refusal.message, artifacts: [], refused: refusal.kind };
}

/** The `tool_result` of a delegated run that ended: its summary and artifacts, or its error. */
export function resultOf(run: Run): DelegateResult {
  const terminal = run.terminal;
  if (terminal?.type === 'complete') return { run_id: run.id, role_id: run.roleId, status: 'complete', summary: terminal.content.summary, artifacts: terminal.content.artifacts };
  const message = terminal?.type === 'error' ? terminal.content.message : 'the delegated run ended without a terminal event';
  return { run_id: run.id, role_id: run.roleId, status: 'error', summary: message, artifacts: [] };
}
