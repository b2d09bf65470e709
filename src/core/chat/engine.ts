/**
 * The chat function every surface ends in. One turn at a time per node (later messages
 * wait in order); each run's events go through its one ordered appender (numbered,
 * persisted, then published); exactly one terminal event per run; cancellation that
 * really stops the runtime; the learning outcome in the stream; recovery of runs a
 * stopped process left open. Storage is a `ChatStore`; the structures are a narrow
 * `ChatDirectory`. The turn itself runs in turn-runner.ts, history pages are read in
 * history-page.ts and recovery is recovery.ts.
 */
import { OrgError, conflict, notFound } from '../errors.js';
import type { AgentRuntime } from '../runtimes/types.js';
import { KeyedMutex } from '../storage/index.js';
import { uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import { errorFields, type Log } from '../util/log.js';
import type { NodeRecord } from '../structures/types.js';
import type { ArtifactShelf, DecodedAttachment } from './artifacts.js';
import type { EncodedEvent } from './encoded.js';
import { historyPage } from './history-page.js';
import { LiveRuns, type LiveRun } from './live-runs.js';
import { outcomeOf, RunObservers, type RunObserver, type TraceCarrier } from './observer.js';
import type { ChatActivity, ChatDirectory, ChatSkills, RunCredentials } from './ports.js';
import { DELEGATION_DEPTH } from '../schemas/delegation.js';
import { Delegator, type Delegation, type DelegationRequest, type RunLineage } from './delegation/index.js';
import { recoverOpenRuns } from './recovery.js';
import type { Run } from './run.js';
import { startRun, type RunStartDeps } from './run-start.js';
import { DEFAULT_ARTIFACT_QUOTA } from './shelf-quota.js';
import { NodeShelves } from './shelves.js';
import { DEFAULT_MAX_QUEUED_TURNS, TurnQueueLimit } from './turn-queue.js';
import type { ChatStore, MessagePage, RunLocation, RunSearchScope } from './store.js';
import type { TurnRunnerDeps } from './turn-runner.js';
import type { EventInput, HistoryMessage, MessageAuthor } from './types.js';
import { NodeLines } from './waiting.js';

/** Picks the runtime for a node (container, LLM or local). */
export type RuntimeRouter = (node: NodeRecord) => AgentRuntime;

export interface ChatEngineOptions {
  directory: ChatDirectory;
  activity: ChatActivity;
  skills: ChatSkills;
  store: ChatStore;
  router: RuntimeRouter;
  clock?: Clock;
  ids?: IdGenerator;
  /** Where unexpected failures are reported (they are never shown to clients). */
  log: Log;
  /** Bytes of finished runs' events kept in memory for replay (default 16 MiB). */
  recentRunBytes?: number;
  /** How many artifact shelves are kept open (default 256). */
  shelves?: number;
  /** Open turns (running or waiting) a node may have; more are refused with 429 (default 20). */
  maxQueuedTurns?: number;
  /** Bytes the artifact shelves of one structure may hold (default 512 MiB). */
  artifactQuota?: number;
  /** Opens a node's artifact shelf (default: the filesystem shelf in the node's folder). */
  openShelf?: (structureId: string, nodeId: string) => ArtifactShelf;
  /** Approximate bytes of artifact listings kept open (default 4 MiB). */
  shelfBytes?: number;
  /** Most hops a delegation chain may go below its root run (`ORG_DELEGATION_DEPTH`, default 4). */
  delegationDepth?: number;
  /**
   * Why the person who started a chain (a user id) may not hand work on in a structure
   * now, e.g. their role there fell to viewer; undefined when they may.
   */
  authority?: (structureId: string, userId: string) => Promise<string | undefined> | string | undefined;
  /** Issues and ends the run-scoped credentials container agents delegate with. */
  credentials?: RunCredentials;
}

/** A chat message to a node. */
export interface SendInput {
  structureId: string;
  roleId: string;
  message: string;
  attachments?: DecodedAttachment[];
  /** Where the message came from (e.g. `email:alice@example.com`), for the history. */
  origin?: string;
  /** Who wrote it (from the request's resolved principal), for the history. */
  author?: MessageAuthor;
  /**
   * The sender's W3C trace context when it arrived inside the message rather than as the
   * current context (an MCP request's `_meta.traceparent` and `tracestate`): observers
   * that trace runs parent the run there.
   */
  traceContext?: TraceCarrier;
}

/** Runs chat turns, one at a time per node in arrival order; each run numbers, persists and fans out its events; `recover` closes runs a stopped process left open. */
export class ChatEngine {
  private readonly runs: LiveRuns;
  private recovering: Promise<number> | undefined;
  private readonly stopCancels: () => void;
  private readonly shelves: NodeShelves;
  private readonly queue = new KeyedMutex();
  /** Places in each node's queue (the cap on open turns). */
  private readonly places: TurnQueueLimit;
  /** The open runs of each node, for the `thought` of a message that waits. */
  private readonly lines = new NodeLines();
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly onError: (error: unknown) => void;
  private readonly observers: RunObservers;
  private readonly turns: TurnRunnerDeps;
  private readonly starts: RunStartDeps;
  private readonly delegator: Delegator;
  private readonly stopNotes: () => void;
  private closing = false;

  constructor(private readonly options: ChatEngineOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
    this.onError = (error) => options.log('error', 'chat: unexpected failure', errorFields(error));
    this.runs = new LiveRuns(options.store, options.recentRunBytes ?? 16 * 1024 * 1024, this.onError);
    // A cancel asked for on another instance, of a turn this one runs.
    this.stopCancels =
      options.store.cluster?.onCancel((runId, reason, by) => {
        if (this.runs.has(runId)) this.cancel(runId, reason, by).catch(() => undefined);
      }) ?? (() => undefined);
    this.shelves = new NodeShelves({
      directory: options.directory,
      clock: this.clock,
      ...(options.openShelf ? { openShelf: options.openShelf } : {}),
      maxOpen: options.shelves ?? 256,
      maxBytes: options.shelfBytes ?? 4 * 1024 * 1024,
      quotaBytes: options.artifactQuota ?? DEFAULT_ARTIFACT_QUOTA,
    });
    this.places = new TurnQueueLimit(options.maxQueuedTurns ?? DEFAULT_MAX_QUEUED_TURNS);
    this.observers = new RunObservers(this.onError);
    const shared = options.store.cluster?.delegations;
    this.delegator = new Delegator({
      runs: this.runs,
      directory: options.directory,
      ...(shared ? { shared } : {}),
      maxDepth: options.delegationDepth ?? DELEGATION_DEPTH,
      ...(options.authority ? { authority: options.authority } : {}),
      send: ({ delegatedFrom, ...input }) => this.accept(input, delegatedFrom),
      follow: async (runId) => (await this.replay(runId).catch(() => undefined))?.run,
      cancel: (runId, reason, by) => this.cancel(runId, reason, by),
      emit: (entry, event) => (entry.turn ? entry.turn.handle(event) : entry.appender.append(event)),
      traceContext: (run) => this.observers.traceContext(run),
      observed: (parent, outcome) => this.observers.notify('delegated', parent, outcome),
      onError: this.onError,
    });
    this.stopNotes = shared?.onNotes((runId) => this.runs.has(runId), (runId, notes) => this.delegator.receive(runId, notes)) ?? (() => undefined);
    const { directory, activity, skills, store, router, credentials } = options;
    this.turns = {
      directory,
      activity,
      skills,
      store,
      router,
      observers: this.observers,
      shelfOf: (s, n) => this.shelfOf(s, n),
      delegate: (where, request) => this.delegator.delegate(where, request),
      ...(credentials ? { credentials } : {}),
      onError: this.onError,
    };
    this.starts = {
      store,
      shelves: this.shelves,
      runs: this.runs,
      lines: this.lines,
      queue: this.queue,
      observers: this.observers,
      turns: this.turns,
      clock: this.clock,
      ids: this.ids,
      ended: (entry) => this.ended(entry),
      onError: this.onError,
    };
  }

  /** Adds an observer of every later run (metrics, traces, webhooks); returns its remover. */
  observe(observer: RunObserver): () => void {
    return this.observers.add(observer);
  }

  /**
   * Closes runs a stopped process left open (on a shared store: runs of instances whose
   * lease ran out, each taken by one instance): each ends with `error` "interrupted by
   * restart". Concurrent calls share one pass.
   */
  recover(): Promise<number> {
    // On a shared store, runs of other instances that an interrupted run delegated stop too.
    const closed = this.options.store.cluster
      ? (where: RunLocation) => void this.delegator.cancelBelow(where.runId, `delegation:${where.roleId}`).catch(this.onError)
      : undefined;
    this.recovering ??= recoverOpenRuns(this.options.store, this.clock, closed).finally(() => {
      this.recovering = undefined;
    });
    return this.recovering;
  }

  /** True once closing began: new messages are refused while running turns end. */
  get draining(): boolean {
    return this.closing;
  }

  /** Refuses new messages from now on (a shutdown began); running turns go on. */
  refuse(): void {
    this.closing = true;
  }

  /** True while the run executes (or waits for its turn) on this instance. */
  runsHere(runId: string): boolean {
    return this.runs.has(runId);
  }

  /** The artifact shelf of a node (by ids). */
  shelfOf(structureId: string, nodeId: string): ArtifactShelf {
    return this.shelves.of(structureId, nodeId);
  }

  /**
   * Accepts a message: stages attachments, records the user message and queues the turn.
   * Returns the run at once; its events follow. Throws before anything is written when
   * the node does not exist.
   */
  async send(input: SendInput): Promise<Run> {
    return this.accept(input);
  }

  /**
   * Hands a task from the running turn at `parent` to another node of its structure
   * (API.md §10): the delegation rules decide, the delegated turn starts through `send`,
   * and the parent's stream shows it. Resolves once the delegated run exists (or was
   * refused); its `result` settles when that run ends.
   */
  delegate(parent: RunLocation, request: DelegationRequest, attachments?: DecodedAttachment[]): Promise<Delegation> {
    return this.delegator.delegate(parent, request, attachments);
  }

  /** `send`, for a delegated turn with the lineage of the run that delegated it: registered and queued at once, resolved once recorded. */
  private async accept(input: SendInput, delegatedFrom?: RunLineage): Promise<Run> {
    // Retry-After: another instance (behind the same load balancer) takes the message now.
    if (this.closing) throw new OrgError('unavailable', 'the server is shutting down; send the message again in a moment', { retryAfter: 1 });
    const node = this.options.directory.node(input.structureId, input.roleId);
    // A place in the node's queue first (429 when it is full), given back when the turn ends.
    const release = this.places.take(node.id, node.role_id);
    try {
      const run = await startRun(this.starts, input, node, delegatedFrom);
      run.done.then(release, release);
      return run;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** What happens when a run ends: it is kept among the recent ones, its credentials end, observers hear it, and what it delegated stops. */
  private ended(entry: LiveRun): void {
    this.runs.retire(entry);
    this.options.credentials?.end(entry.run.id);
    this.observers.notify('finished', entry.run, outcomeOf(entry.run), entry.runtime);
    // What the run delegated and did not wait for stops with it.
    this.cascade(entry).catch(this.onError);
  }

  /**
   * Cancels the open runs an ended run delegated, once (the first caller's reason holds:
   * a cancel names who stopped the chain, else the delegating run's end does).
   */
  private cascade(entry: LiveRun): Promise<void> {
    entry.cascade ??= (async () => {
      // A run that delegated nothing (and whose agent could not have, elsewhere) has nothing below it.
      const elsewhere = this.options.store.cluster !== undefined && entry.runtime === 'container';
      if (entry.children.size === 0 && entry.delegations === 0 && !elsewhere) return;
      await this.delegator.cancelBelow(entry.run.id, entry.cancelledBy ?? `delegation:${entry.run.roleId}`, entry.children);
    })();
    return entry.cascade;
  }

  /** True when run `runId` was delegated by run `parentRunId` (the runs a run token may follow and cancel). */
  async delegatedFrom(runId: string, parentRunId: string): Promise<boolean> {
    if (this.runs.entry(parentRunId)?.delegated.has(runId)) return true;
    const known = this.run(runId);
    if (known) return known.delegatedBy?.run_id === parentRunId;
    return (await this.options.store.cluster?.delegations.parentOf(runId)) === parentRunId;
  }

  /** A run of this process that has not finished (or finished recently), if known. */
  run(runId: string): Run | undefined {
    return this.runs.get(runId);
  }

  /** Where a run belongs (also for runs of earlier processes); undefined when unknown. */
  async locate(runId: string): Promise<RunLocation | undefined> {
    return this.run(runId)?.where ?? this.options.store.locate(runId);
  }

  /** Runs whose id starts with `prefix` within `scope` (what a caller can see), by id, at most `limit`. */
  findRuns(prefix: string, scope: RunSearchScope, limit: number): Promise<RunLocation[]> {
    return this.options.store.findRuns(prefix.toLowerCase(), scope, limit);
  }

  /**
   * The events of a run after `afterSeq`, for replay: the run itself when this process
   * knows it (follow it live with `run.subscribe`), else the stored events. 404 when unknown.
   */
  async replay(runId: string, afterSeq = 0): Promise<{ run?: Run; events: EncodedEvent[] }> {
    const known = this.run(runId);
    if (known) return { run: known, events: known.eventsAfter(afterSeq) };
    const where = await this.options.store.locate(runId);
    if (!where) throw notFound(`run ${runId} not found`);
    const remote = await this.runs.followRemote(where);
    if (remote) return { run: remote, events: remote.eventsAfter(afterSeq) };
    return { events: await this.options.store.events(runId, afterSeq) };
  }

  /**
   * A run to follow, for the resume endpoint: the run itself when this process knows it
   * (or follows it on another instance), else its stored events after `afterSeq` as SSE
   * frames read a part at a time, so that replaying a long run does not load it whole.
   * 404 when unknown.
   */
  async follow(runId: string, afterSeq = 0): Promise<{ run: Run } | { frames: AsyncIterable<Buffer> }> {
    const known = this.run(runId);
    if (known) return { run: known };
    const where = await this.options.store.locate(runId);
    if (!where) throw notFound(`run ${runId} not found`);
    const remote = await this.runs.followRemote(where);
    if (remote) return { run: remote };
    return { frames: this.options.store.eventFrames(runId, afterSeq) };
  }

  /**
   * Cancels a running or queued run: it ends with `error` "cancelled" (naming `by`, the
   * person or key that stopped it, as `cancelled_by`) and its runtime is aborted.
   */
  async cancel(runId: string, reason = 'cancelled', by?: string): Promise<void> {
    const entry = this.runs.entry(runId);
    if (!entry) {
      const cluster = this.options.store.cluster;
      if (cluster && !this.runs.recentRun(runId) && (await cluster.requestCancel(runId, reason, by))) {
        // The instance running the turn stops it; this one waits for the run's end.
        const { run } = await this.replay(runId);
        await run?.done;
        return;
      }
      if (await this.locate(runId)) throw conflict(`run ${runId} has already finished`);
      throw notFound(`run ${runId} not found`);
    }
    if (entry.appender.sealed) throw conflict(`run ${runId} has already finished`);
    const event: EventInput = { type: 'error', content: { message: reason, ...(by ? { cancelled_by: by } : {}) } };
    // The runs it delegated stop too, naming the same person.
    if (by !== undefined) entry.cancelledBy ??= by;
    const ended = entry.turn ? entry.turn.handle(event) : entry.appender.append(event);
    entry.run.controller.abort(new Error(reason));
    await ended;
    await this.cascade(entry);
  }

  /** A page of a node's history, newest first, with every event of each agent message. */
  history(structureId: string, roleId: string, page: MessagePage): Promise<HistoryMessage[]> {
    return historyPage({ directory: this.options.directory, store: this.options.store, runs: this.runs }, structureId, roleId, page);
  }

  /** Runs that have not finished. */
  active(): Run[] {
    return this.runs.active();
  }

  /**
   * Stops accepting messages, lets running turns end for up to `graceMs`, then cancels
   * what is left ("interrupted by shutdown"), and closes the store.
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    this.stopCancels();
    this.stopNotes();
    const pending = this.active();
    if (pending.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.all(pending.map((run) => run.done)), timeout]);
      clearTimeout(timer);
      for (const run of this.active()) await this.cancel(run.id, 'interrupted by shutdown').catch(() => undefined);
    }
    await this.options.store.close();
  }
}
