/**
 * The turn engine: one turn at a time per node (later messages wait in order), every
 * event persisted to the node's history as it happens and fanned out to live
 * subscribers, exactly one terminal event per run, cancellation that really stops the
 * runtime, auto-learned drafts, and recovery of runs interrupted by a restart.
 */
import { join } from 'node:path';
import { OrgError, conflict, notFound } from '../errors.js';
import type { AgentRuntime, Turn, TurnTools } from '../runtimes/types.js';
import { KeyedMutex, appendJsonl, readJsonl } from '../storage/index.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { NodeActivity } from '../workspaces/activity.js';
import type { WorkspaceService } from '../workspaces/service.js';
import type { NodeRecord } from '../workspaces/types.js';
import { ArtifactShelf, type DecodedAttachment } from './artifacts.js';
import { enrich } from './enrich.js';
import { NodeHistory, type HistoryPage, type HistoryRecord } from './history.js';
import { draftFromTurn } from './learn.js';
import type { ChatSkills } from './ports.js';
import { Run } from './run.js';
import { type ChatEvent, type EventInput, type HistoryMessage, isTerminal } from './types.js';

/** Picks the runtime for a node (container, LLM or local). */
export type RuntimeRouter = (node: NodeRecord) => AgentRuntime;

/** Options of the engine. */
export interface ChatEngineOptions {
  workspaces: WorkspaceService;
  activity: NodeActivity;
  skills: ChatSkills;
  router: RuntimeRouter;
  /** `.org` folder (for the run index `runs.jsonl`). */
  stateDir: string;
  clock?: Clock;
  ids?: IdGenerator;
  /** Reports unexpected failures (never shown to clients). */
  onError?: (error: unknown) => void;
}

/** A chat message to a node. */
export interface SendInput {
  structureId: string;
  roleId: string;
  message: string;
  attachments?: DecodedAttachment[];
  /** Where the message came from (e.g. `email:alice@example.com`), for the history. */
  origin?: string;
}

interface RunIndexRecord {
  run_id: string;
  structure_id?: string;
  node_id?: string;
  role_id?: string;
  end?: boolean;
}

const RECENT_RUNS = 2000;

interface TurnState {
  emitted: EventInput[];
  usedSkill: boolean;
  message: string;
  /** Settles when the latest recorded event is on disk. */
  durable: Promise<void>;
}

/** The chat function every surface ends in. */
export class ChatEngine {
  private readonly runs = new Map<string, Run>();
  private readonly histories = new Map<string, NodeHistory>();
  private readonly shelves = new Map<string, ArtifactShelf>();
  private readonly queue = new KeyedMutex();
  private readonly index = new Map<string, { structureId: string; nodeId: string; roleId: string }>();
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private closing = false;
  private readonly runIndexFile: string;

  constructor(private readonly options: ChatEngineOptions) {
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
    this.runIndexFile = join(options.stateDir, 'runs.jsonl');
  }

  /** Loads the run index and closes runs left running by a previous process with an error. */
  async recover(): Promise<number> {
    const open = new Map<string, RunIndexRecord>();
    for (const record of await readJsonl<RunIndexRecord>(this.runIndexFile)) {
      if (record.end) {
        open.delete(record.run_id);
        continue;
      }
      if (record.structure_id && record.node_id && record.role_id) {
        this.index.set(record.run_id, { structureId: record.structure_id, nodeId: record.node_id, roleId: record.role_id });
        open.set(record.run_id, record);
      }
    }
    let recovered = 0;
    for (const record of open.values()) {
      const history = this.historyOf(record.structure_id!, record.node_id!);
      const message = await history.agentMessage(record.run_id);
      if (message && message.status === 'running') {
        const event: ChatEvent = { type: 'error', content: { message: 'interrupted by restart' }, timestamp: isoNow(this.clock) };
        await history.append(
          { kind: 'event', run_id: record.run_id, seq: message.events.length + 1, event },
          { kind: 'end', run_id: record.run_id, status: 'error', summary: null, artifacts: [], completed_at: event.timestamp },
        );
        recovered++;
      }
      await appendJsonl(this.runIndexFile, { run_id: record.run_id, end: true });
    }
    return recovered;
  }

  /** The history of a node (by ids). */
  historyOf(structureId: string, nodeId: string): NodeHistory {
    const key = `${structureId}/${nodeId}`;
    let history = this.histories.get(key);
    if (!history) {
      history = new NodeHistory(this.options.workspaces.nodeDir(structureId, nodeId));
      this.histories.set(key, history);
    }
    return history;
  }

  /** The artifact shelf of a node (by ids). */
  shelfOf(structureId: string, nodeId: string): ArtifactShelf {
    const key = `${structureId}/${nodeId}`;
    let shelf = this.shelves.get(key);
    if (!shelf) {
      shelf = new ArtifactShelf(this.options.workspaces.nodeDir(structureId, nodeId), this.clock);
      this.shelves.set(key, shelf);
    }
    return shelf;
  }

  /**
   * Accepts a message: stages attachments, records the user message and queues the turn.
   * Returns the run at once; its events follow. Throws before anything is written when
   * the node does not exist.
   */
  async send(input: SendInput): Promise<Run> {
    if (this.closing) throw new OrgError('unavailable', 'the server is shutting down');
    const node = this.options.workspaces.node(input.structureId, input.roleId);
    const runId = this.ids();
    const shelf = this.shelfOf(input.structureId, node.id);
    const staged: Turn['attachments'] = [];
    for (const attachment of input.attachments ?? []) {
      const info = await shelf.write(attachment.name, attachment.data, attachment.content_type);
      staged.push({ name: info.name, content_type: info.content_type, size: info.size, path: join(shelf.dir, info.name) });
    }
    const now = isoNow(this.clock);
    const run = new Run(runId, input.structureId, node.id, node.role_id);
    this.runs.set(runId, run);
    this.index.set(runId, { structureId: input.structureId, nodeId: node.id, roleId: node.role_id });
    this.trimRecent();
    await appendJsonl(this.runIndexFile, { run_id: runId, structure_id: input.structureId, node_id: node.id, role_id: node.role_id });
    const history = this.historyOf(input.structureId, node.id);
    const recent = await history.page({ limit: 20 });
    await history.append(
      {
        kind: 'user',
        id: this.ids(),
        run_id: runId,
        text: input.message,
        attachments: staged.map(({ name, content_type, size }) => ({ name, content_type, size })),
        created_at: now,
        ...(input.origin ? { origin: input.origin } : {}),
      },
      { kind: 'start', id: this.ids(), run_id: runId, created_at: now },
    );
    void this.queue.run(node.id, () => this.execute(run, input, staged, recent)).catch((error: unknown) => this.options.onError?.(error));
    return run;
  }

  private trimRecent(): void {
    if (this.runs.size <= RECENT_RUNS) return;
    for (const [id, run] of this.runs) {
      if (this.runs.size <= RECENT_RUNS) break;
      if (run.finished) this.runs.delete(id);
    }
  }

  private async execute(run: Run, input: SendInput, staged: Turn['attachments'], recent: HistoryMessage[]): Promise<void> {
    if (run.sealed) return; // cancelled while queued
    const turnState: TurnState = { emitted: [], usedSkill: false, message: input.message, durable: Promise.resolve() };
    // Events are sequenced through `chain` (side effects in order) but do not wait for
    // each other's fsync: the history group-commits them.
    let chain: Promise<unknown> = Promise.resolve();
    const record = (event: EventInput): Promise<void> => {
      const step = chain.then(() => this.record(run, event, turnState));
      chain = step.catch(() => undefined);
      return step.then((written) => written.durable);
    };
    this.options.activity.begin(run.nodeId);
    try {
      const structure = this.options.workspaces.record(run.structureId);
      const node = structure.agents.find((candidate) => candidate.id === run.nodeId);
      if (!node) throw new OrgError('not_found', `node ${run.roleId} was deleted before its turn started`);
      const turn = await enrich({
        runId: run.id,
        structure,
        nodeId: run.nodeId,
        message: input.message,
        attachments: staged,
        history: recent,
        skills: this.options.skills,
      });
      turnState.usedSkill = turn.skills.length > 0;
      const runtime = this.options.router(node);
      await runtime.run(turn, record, this.tools(run), run.controller.signal);
      await chain;
      if (!run.sealed) await record({ type: 'error', content: { message: `the ${runtime.name} runtime ended without a complete or error event` } });
    } catch (error) {
      await chain;
      if (!run.sealed) {
        const message = error instanceof Error ? error.message : 'the turn failed';
        await record({ type: 'error', content: { message } }).catch((failure: unknown) => this.options.onError?.(failure));
      }
    } finally {
      await turnState.durable.catch(() => undefined);
      await run.done.catch(() => undefined);
      this.options.activity.end(run.nodeId);
    }
  }

  /** Applies one event's side effects and queues it for persistence; `durable` settles when it is on disk. */
  private async record(run: Run, event: EventInput, state: TurnState): Promise<{ durable: Promise<void> }> {
    if (run.sealed) return { durable: Promise.resolve() };
    if (event.type === 'complete') {
      const draft = draftFromTurn({ structureId: run.structureId, message: state.message, usedSkill: state.usedSkill, events: state.emitted });
      if (draft) {
        const slug = await this.options.skills.learnDraft(draft);
        // Tell the client the slug the draft was stored under when a suffix was needed.
        const learned = state.emitted.find((candidate) => candidate.type === 'skill_learned');
        if (learned?.type === 'skill_learned' && learned.content.slug !== slug) {
          void this.persist(run, { type: 'skill_learned', content: { slug, name: learned.content.name } });
        }
      }
    }
    state.emitted.push(event);
    if (event.type === 'decision' || event.type === 'milestone') {
      await this.options.workspaces.appendLog(run.structureId, {
        type: event.type,
        title: event.content.title,
        ...(event.type === 'decision' ? { body: event.content.body } : {}),
        role_id: run.roleId,
        node_id: run.nodeId,
        run_id: run.id,
      });
    }
    const durable = this.persist(run, event);
    state.durable = durable;
    return { durable };
  }

  /**
   * Numbers an event, appends it to the history (group-committed) and publishes it once
   * durable. Events are published in number order because history appends resolve in
   * the order they were made.
   */
  private persist(run: Run, input: EventInput): Promise<void> {
    const terminal = isTerminal(input);
    const seq = run.reserve(terminal);
    if (seq === undefined) return Promise.resolve();
    const event = { ...input, timestamp: isoNow(this.clock) } as ChatEvent;
    const history = this.historyOf(run.structureId, run.nodeId);
    const records: HistoryRecord[] = [{ kind: 'event', run_id: run.id, seq, event }];
    if (terminal) {
      const complete = event.type === 'complete' ? event.content : undefined;
      records.push({
        kind: 'end',
        run_id: run.id,
        status: event.type === 'complete' ? 'complete' : 'error',
        summary: complete?.summary ?? null,
        artifacts: complete?.artifacts ?? [],
        completed_at: event.timestamp,
      });
    }
    return history.append(...records).then(
      async () => {
        if (terminal) await appendJsonl(this.runIndexFile, { run_id: run.id, end: true }).catch((error: unknown) => this.options.onError?.(error));
        run.push(seq, event);
      },
      (error: unknown) => {
        // The disk refused the write: still publish, so no client or queue waits forever.
        this.options.onError?.(error);
        run.push(seq, event);
        throw error;
      },
    );
  }

  private tools(run: Run): TurnTools {
    return {
      searchSkills: (query, limit = 5) => this.options.skills.search(query, run.structureId, limit),
      readSkill: (slug) => this.options.skills.readRaw(slug, run.structureId),
      writeArtifact: async (name, content, contentType) => (await this.shelfOf(run.structureId, run.nodeId).write(name, content, contentType)).name,
    };
  }

  /** A run of this process, if known. */
  run(runId: string): Run | undefined {
    return this.runs.get(runId);
  }

  /** Where a run belongs (also for runs of earlier processes). */
  locate(runId: string): { structureId: string; nodeId: string; roleId: string } | undefined {
    return this.index.get(runId);
  }

  /**
   * The events of a run, for replay: the live run when this process ran it, else the
   * events persisted in its node's history. 404 when unknown.
   */
  async replay(runId: string): Promise<{ run?: Run; events: ChatEvent[] }> {
    const live = this.runs.get(runId);
    if (live) return { run: live, events: live.events.map((numbered) => numbered.event) };
    const where = this.index.get(runId);
    if (!where) throw notFound(`run ${runId} not found`);
    const message = await this.historyOf(where.structureId, where.nodeId).agentMessage(runId);
    if (!message) throw notFound(`run ${runId} not found`);
    return { events: message.events };
  }

  /** Cancels a running or queued run: it ends with `error` "cancelled" and its runtime is aborted. */
  async cancel(runId: string, reason = 'cancelled'): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) {
      if (this.index.has(runId)) throw conflict(`run ${runId} has already finished`);
      throw notFound(`run ${runId} not found`);
    }
    if (run.sealed) throw conflict(`run ${runId} has already finished`);
    const ended = this.persist(run, { type: 'error', content: { message: reason } });
    run.controller.abort(new Error(reason));
    await ended;
  }

  /** A page of a node's history, newest first. */
  async history(structureId: string, roleId: string, page: HistoryPage): Promise<HistoryMessage[]> {
    const node = this.options.workspaces.node(structureId, roleId);
    const history = this.historyOf(structureId, node.id);
    if (page.before !== undefined && !(await history.has(page.before))) throw notFound(`history message ${page.before} not found`);
    return history.page(page);
  }

  /** Runs that have not finished. */
  active(): Run[] {
    return [...this.runs.values()].filter((run) => !run.finished);
  }

  /**
   * Stops accepting messages, lets running turns end for up to `graceMs`, then cancels
   * what is left ("interrupted by shutdown").
   */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const pending = this.active();
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(pending.map((run) => run.done)), timeout]);
    clearTimeout(timer);
    for (const run of this.active()) await this.cancel(run.id, 'interrupted by shutdown').catch(() => undefined);
  }
}
