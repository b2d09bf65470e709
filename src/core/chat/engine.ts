/**
 * The chat function every surface ends in. One turn at a time per node (later messages
 * wait in order); each run's events go through its one ordered appender (numbered,
 * persisted, then published); exactly one terminal event per run; cancellation that
 * really stops the runtime; the learning outcome in the stream; recovery of runs a
 * stopped process left open. Storage is a `ChatStore`; the structures are a narrow
 * `ChatDirectory`.
 */
import { join } from 'node:path';
import { OrgError, conflict, notFound } from '../errors.js';
import type { AgentRuntime, Turn, TurnTools } from '../runtimes/types.js';
import { KeyedMutex } from '../storage/index.js';
import { BoundedCache, isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import { errorFields, type Log } from '../util/log.js';
import type { NodeRecord } from '../structures/types.js';
import { RunAppender } from './appender.js';
import { FsArtifactShelf, type ArtifactShelf, type DecodedAttachment } from './artifacts.js';
import { decodeEvent, runText, type EncodedEvent } from './encoded.js';
import { FrameBatch } from './frames.js';
import { enrich } from './enrich.js';
import { outcomeOf, RunObservers, type RunObserver, type TraceCarrier } from './observer.js';
import type { ChatActivity, ChatDirectory, ChatSkills } from './ports.js';
import { RecentRuns } from './recent-runs.js';
import { followRemoteRun } from './remote-run.js';
import { Run } from './run.js';
import type { AgentEndRecord, ChatStore, MessagePage, RunLocation } from './store.js';
import { TurnEvents } from './turn.js';
import { isTerminal, type ChatEvent, type EventInput, type HistoryMessage, type MessageAuthor, type RelayedItem } from './types.js';

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
  /** Opens a node's artifact shelf (default: the filesystem shelf in the node's folder). */
  openShelf?: (structureId: string, nodeId: string) => ArtifactShelf;
  /** Approximate bytes of artifact listings kept open (default 4 MiB). */
  shelfBytes?: number;
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

/** A run of this process while it is queued or running. */
interface LiveRun {
  run: Run;
  appender: RunAppender;
  /** Set once the turn runs (its event handling, with learning). */
  turn?: TurnEvents;
  /** Name of the runtime running the turn, once it started. */
  runtime?: string;
}

/** How many recent messages a runtime receives. */
const TURN_HISTORY = 20;

/** Runs chat turns, one at a time per node in arrival order; each run numbers, persists and fans out its events; `recover` closes runs a stopped process left open. */
export class ChatEngine {
  private readonly live = new Map<string, LiveRun>();
  /** Runs executing on other instances that streams of this one follow (shared stores). */
  private readonly remote = new Map<string, Promise<Run>>();
  private recovering: Promise<number> | undefined;
  private readonly stopCancels: () => void;
  private readonly recent: RecentRuns;
  private readonly shelves: BoundedCache<string, ArtifactShelf>;
  private readonly queue = new KeyedMutex();
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly onError: (error: unknown) => void;
  private readonly observers: RunObservers;
  private closing = false;

  constructor(private readonly options: ChatEngineOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
    this.onError = (error) => options.log('error', 'chat: unexpected failure', errorFields(error));
    this.recent = new RecentRuns(options.recentRunBytes ?? 16 * 1024 * 1024);
    // A cancel asked for on another instance, of a turn this one runs.
    this.stopCancels =
      options.store.cluster?.onCancel((runId, reason, by) => {
        if (this.live.has(runId)) this.cancel(runId, reason, by).catch(() => undefined);
      }) ?? (() => undefined);
    this.shelves = new BoundedCache({ maxEntries: options.shelves ?? 256, maxBytes: options.shelfBytes ?? 4 * 1024 * 1024 });
    this.observers = new RunObservers(this.onError);
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
    this.recovering ??= this.recoverOnce().finally(() => {
      this.recovering = undefined;
    });
    return this.recovering;
  }

  private async recoverOnce(): Promise<number> {
    let recovered = 0;
    for (const where of await this.options.store.openRuns()) {
      const events = await this.options.store.events(where.runId, 0);
      const last = events.at(-1);
      const text = runText(events);
      if (last && isTerminal(last)) {
        await this.options.store.endRun(where, this.endRecord(where.runId, last, text));
        continue;
      }
      const interrupted: EncodedEvent = {
        seq: (last?.seq ?? 0) + 1,
        type: 'error',
        json: JSON.stringify({ type: 'error', content: { message: 'interrupted by restart' }, timestamp: isoNow(this.clock) }),
      };
      const writer = this.options.store.eventWriter(where);
      await writer.write([FrameBatch.of([interrupted])]);
      await this.options.store.endRun(where, this.endRecord(where.runId, interrupted, text));
      recovered++;
    }
    return recovered;
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
    return this.live.has(runId);
  }

  /** The artifact shelf of a node (by ids). */
  shelfOf(structureId: string, nodeId: string): ArtifactShelf {
    const key = `${structureId}/${nodeId}`;
    const shelf = this.shelves.get(key) ?? this.options.openShelf?.(structureId, nodeId) ?? new FsArtifactShelf(this.options.directory.nodeDir(structureId, nodeId), this.clock);
    // Re-measured on every use: a shelf's listing grows with its artifacts.
    this.shelves.set(key, shelf, shelf.bytes);
    return shelf;
  }

  /**
   * Accepts a message: stages attachments, records the user message and queues the turn.
   * Returns the run at once; its events follow. Throws before anything is written when
   * the node does not exist.
   */
  async send(input: SendInput): Promise<Run> {
    // Retry-After: another instance (behind the same load balancer) takes the message now.
    if (this.closing) throw new OrgError('unavailable', 'the server is shutting down; send the message again in a moment', { retryAfter: 1 });
    const node = this.options.directory.node(input.structureId, input.roleId);
    const where: RunLocation = { runId: this.ids(), structureId: input.structureId, nodeId: node.id, roleId: node.role_id };
    const shelf = this.shelfOf(input.structureId, node.id);
    const staged: Turn['attachments'] = [];
    for (const attachment of input.attachments ?? []) {
      const info = await shelf.write(attachment.name, attachment.data, attachment.content_type, { runId: where.runId, source: 'attachment' });
      staged.push({ name: info.name, content_type: info.content_type, size: info.size, path: join(shelf.dir, info.name) });
    }
    const now = isoNow(this.clock);
    const run = new Run(where);
    const appender = new RunAppender(run, this.options.store.eventWriter(where), () => isoNow(this.clock), {
      logged: (events) => this.logDecisions(run, events),
      end: (terminal, text, truncated) => this.options.store.endRun(where, this.endRecord(where.runId, terminal, text, truncated)),
      onError: this.onError,
    });
    const recent = await this.options.store.messages(where, { limit: TURN_HISTORY });
    await this.options.store.startRun(
      where,
      {
        id: this.ids(),
        run_id: where.runId,
        text: input.message,
        attachments: staged.map(({ name, content_type, size }) => ({ name, content_type, size })),
        created_at: now,
        ...(input.origin ? { origin: input.origin } : {}),
        ...(input.author ? { author: input.author } : {}),
      },
      { id: this.ids(), run_id: where.runId, created_at: now },
    );
    const entry: LiveRun = { run, appender };
    this.live.set(where.runId, entry);
    this.observers.notify('queued', run, input.traceContext);
    void run.done.then(() => {
      this.retire(entry);
      this.observers.notify('finished', run, outcomeOf(run), entry.runtime);
    });
    this.queue.run(node.id, () => this.observers.within(run, () => this.execute(entry, input.message, staged, recent))).catch(this.onError);
    return run;
  }

  private retire(entry: LiveRun): void {
    this.live.delete(entry.run.id);
    this.recent.add(entry.run);
  }

  private endRecord(runId: string, terminal: EncodedEvent, text: string, truncated = false): AgentEndRecord {
    const event = decodeEvent(terminal);
    const complete = event.type === 'complete' ? event.content : undefined;
    return {
      run_id: runId,
      status: event.type === 'complete' ? ('complete' as const) : ('error' as const),
      text,
      ...(truncated ? { text_truncated: true as const } : {}),
      summary: complete?.summary ?? null,
      artifacts: complete?.artifacts ?? [],
      completed_at: event.timestamp,
    };
  }

  /** Decisions and milestones of a batch go to the workspace log, beside the events. */
  private logDecisions(run: Run, events: readonly EventInput[]): Promise<void> | undefined {
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
    return entries.length > 0 ? this.options.directory.appendLog(run.structureId, entries) : undefined;
  }

  private async execute(entry: LiveRun, message: string, staged: Turn['attachments'], recent: Turn['history']): Promise<void> {
    const { run, appender } = entry;
    if (appender.sealed) return; // cancelled while queued
    // Turns of the node taken by other instances, earlier, go first.
    await this.options.store.cluster?.awaitTurn(run.where, run.controller.signal);
    if (appender.sealed) return;
    const wasIdle = this.options.activity.stateOf(run.nodeId) === 'idle';
    this.options.activity.begin(run.nodeId, run.structureId);
    if (wasIdle) this.observers.notify('nodeState', run.where, 'working');
    try {
      const structure = this.options.directory.structure(run.structureId);
      const node = structure.agents.find((candidate) => candidate.id === run.nodeId);
      if (!node) throw new OrgError('not_found', `node ${run.roleId} was deleted before its turn started`);
      const turn = await enrich({ runId: run.id, structure, nodeId: run.nodeId, message, attachments: staged, history: recent, skills: this.options.skills });
      const events = new TurnEvents(appender, this.options.skills, {
        structureId: run.structureId,
        message,
        usedSkills: turn.skills.map((skill) => skill.slug),
      });
      entry.turn = events;
      const runtime = this.options.router(node);
      entry.runtime = runtime.name;
      this.observers.notify('started', run, runtime.name);
      const trace = this.observers.traceContext(run);
      if (trace) turn.trace_context = trace;
      const emit = Object.assign((event: EventInput, raw?: string, parsed?: unknown) => events.handle(event, raw, parsed), {
        batch: (relayed: RelayedItem[]) => events.handleBatch(relayed),
      });
      await runtime.run(turn, emit, this.tools(run), run.controller.signal);
      if (!appender.sealed) await events.handle({ type: 'error', content: { message: `the ${runtime.name} runtime ended without a complete or error event` } });
    } catch (error) {
      const message = error instanceof Error ? error.message : 'the turn failed';
      const event: EventInput = { type: 'error', content: { message } };
      await (entry.turn ? entry.turn.handle(event) : appender.append(event)).catch(this.onError);
    } finally {
      await appender.idle();
      await run.done;
      this.options.activity.end(run.nodeId, run.structureId);
      if (this.options.activity.stateOf(run.nodeId) === 'idle') this.observers.notify('nodeState', run.where, 'idle');
    }
  }

  private tools(run: Run): TurnTools {
    return {
      searchSkills: (query, limit = 5) => this.options.skills.search(query, run.structureId, limit),
      readSkill: (slug) => this.options.skills.readRaw(slug, run.structureId),
      writeArtifact: async (name, content, contentType) =>
        (await this.shelfOf(run.structureId, run.nodeId).write(name, content, contentType, { runId: run.id, source: 'agent' })).name,
    };
  }

  /** A run of this process that has not finished (or finished recently), if known. */
  run(runId: string): Run | undefined {
    return this.live.get(runId)?.run ?? this.recent.get(runId);
  }

  /** Where a run belongs (also for runs of earlier processes); undefined when unknown. */
  async locate(runId: string): Promise<RunLocation | undefined> {
    return this.run(runId)?.where ?? this.options.store.locate(runId);
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
    const remote = await this.followRemote(where);
    if (remote) return { run: remote, events: remote.eventsAfter(afterSeq) };
    return { events: await this.options.store.events(runId, afterSeq) };
  }

  /**
   * On a shared store, a run still going on another instance, followed live (one
   * follower per run, however many streams); undefined when it has ended or the store
   * is not shared.
   */
  private async followRemote(where: RunLocation): Promise<Run | undefined> {
    const cluster = this.options.store.cluster;
    if (!cluster) return undefined;
    let following = this.remote.get(where.runId);
    if (!following) {
      following = followRemoteRun(this.options.store, cluster, where, this.onError);
      this.remote.set(where.runId, following);
      following.then(
        (run) =>
          run.done.then(() => {
            this.remote.delete(where.runId);
            this.recent.add(run);
          }),
        () => this.remote.delete(where.runId),
      );
    }
    const run = await following;
    return run;
  }

  /**
   * Cancels a running or queued run: it ends with `error` "cancelled" (naming `by`, the
   * person or key that stopped it, as `cancelled_by`) and its runtime is aborted.
   */
  async cancel(runId: string, reason = 'cancelled', by?: string): Promise<void> {
    const entry = this.live.get(runId);
    if (!entry) {
      const cluster = this.options.store.cluster;
      if (cluster && !this.recent.get(runId) && (await cluster.requestCancel(runId, reason, by))) {
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
    const ended = entry.turn ? entry.turn.handle(event) : entry.appender.append(event);
    entry.run.controller.abort(new Error(reason));
    await ended;
  }

  /** A page of a node's history, newest first, with every event of each agent message. */
  async history(structureId: string, roleId: string, page: MessagePage): Promise<HistoryMessage[]> {
    const node = this.options.directory.node(structureId, roleId);
    const where = { structureId, nodeId: node.id };
    if (page.before !== undefined && !(await this.options.store.hasMessage(where, page.before))) {
      throw notFound(`history message ${page.before} not found`);
    }
    const messages = await this.options.store.messages(where, page);
    return Promise.all(
      messages.map(async (message): Promise<HistoryMessage> => {
        if (message.sender === 'user') return { ...message, events: [] };
        const live = this.live.get(message.run_id);
        const known = live?.run ?? this.recent.get(message.run_id);
        // The end is stored just before the terminal event is published: wait for it.
        if (known && message.status !== 'running' && !known.finished) await known.done;
        const encoded = known ? known.eventsAfter(0) : await this.options.store.events(message.run_id, 0);
        const events = encoded.map(decodeEvent);
        if (live && message.status === 'running') return { ...message, events, text: textOf(events) };
        if (message.text_truncated) {
          // The store kept the start of a long text: the whole of it is the run's text events.
          const { text_truncated: _cut, ...whole } = message;
          return { ...whole, events, text: textOf(events) };
        }
        return { ...message, events };
      }),
    );
  }

  /** Runs that have not finished. */
  active(): Run[] {
    return [...this.live.values()].map((entry) => entry.run);
  }

  /**
   * Stops accepting messages, lets running turns end for up to `graceMs`, then cancels
   * what is left ("interrupted by shutdown"), and closes the store.
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    this.stopCancels();
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

function textOf(events: ChatEvent[]): string {
  let text = '';
  for (const event of events) if (event.type === 'text') text += event.content;
  return text;
}
