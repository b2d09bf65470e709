/**
 * What the chat engine keeps, behind one interface with one implementation per
 * backend (the filesystem home, PostgreSQL). The engine never knows which it has.
 *
 * - Messages: per node, the user messages and the agent messages (one per run: its
 *   start, then its end with status, text, summary and artifacts).
 * - Run events: per run, its numbered events, appended in batches and durable when the
 *   returned promise settles (backends group-commit them).
 * - Open runs: which runs were started and not ended, so a restart (or another
 *   instance) can close them.
 */
import type { DelegatedBy } from '../schemas/delegation.js';
export { RUN_PREFIX_MIN } from '../schemas/chat.js';
import type { DelegationNote, OpenRunLink, RunLineage } from './delegation/types.js';
import type { EncodedEvent } from './encoded.js';
import type { FrameBatch } from './frames.js';
import type { AttachmentInfo, MessageAuthor, RunStatus } from './types.js';

/** Where a run belongs. */
export interface RunLocation {
  runId: string;
  structureId: string;
  nodeId: string;
  roleId: string;
}

/**
 * Where a run search looks: the structures a caller can see (`all`: every one, the
 * administrator's), and within them only one node's runs when `roleId` is given.
 */
export interface RunSearchScope {
  structureIds: readonly string[] | 'all';
  roleId?: string;
}

/** True when a run at `where` is within `scope`. */
export function inRunScope(where: RunLocation, scope: RunSearchScope): boolean {
  if (scope.roleId !== undefined && where.roleId !== scope.roleId) return false;
  return scope.structureIds === 'all' || scope.structureIds.includes(where.structureId);
}

/** A user message as stored. */
export interface UserMessageRecord {
  id: string;
  run_id: string;
  text: string;
  attachments: AttachmentInfo[];
  created_at: string;
  /** Where the message came from when not the API itself (e.g. `email:alice@example.com`). */
  origin?: string;
  /** On a delegated turn: the delegating node and run, and the root run of the chain. */
  delegated_by?: DelegatedBy;
  /** Who wrote it (absent on messages stored before authors were recorded). */
  author?: MessageAuthor;
}

/** The start of an agent message (its run). */
export interface AgentStartRecord {
  id: string;
  run_id: string;
  created_at: string;
}

/**
 * Characters of an agent's text an end record needs to carry. The whole text is in the
 * run's events already: a run that streamed megabytes would have them joined, written
 * and read again for nothing.
 */
export const END_TEXT = 16_384;

/** The end of an agent message. */
export interface AgentEndRecord {
  run_id: string;
  status: Exclude<RunStatus, 'running'>;
  /**
   * The agent's text: every `text` event of the run, joined; or, with `text_truncated`,
   * its first `END_TEXT` characters (a store keeps that, or rebuilds the whole from the
   * run's events).
   */
  text: string;
  text_truncated?: true;
  summary: string | null;
  artifacts: string[];
  completed_at: string;
}

/** A history message without its events (they are read from the run's events). */
export interface StoredMessage {
  id: string;
  run_id: string;
  sender: 'user' | 'agent';
  text: string;
  attachments: AttachmentInfo[];
  summary: string | null;
  artifacts: string[];
  status: RunStatus;
  created_at: string;
  completed_at: string | null;
  origin?: string;
  delegated_by?: DelegatedBy;
  author?: MessageAuthor;
  /**
   * Set when `text` holds only the start of the message's text: a store may keep a long
   * agent text cut (the whole text is the run's `text` events joined, which history pages
   * rebuild), and a turn carries long texts cut.
   */
  text_truncated?: true;
}

/** A page of a node's history. */
export interface MessagePage {
  limit: number;
  /** Only messages older than the message with this id. */
  before?: string;
}

/** Appends the events of one run, in order. */
export interface RunEventWriter {
  /**
   * Appends consecutive batches durably, as one commit; resolves once they are on disk
   * (or committed). The batches' frames are read only until the returned promise settles.
   */
  write(batches: readonly FrameBatch[]): Promise<void>;
  /** Releases what the writer holds (an open file). */
  close(): Promise<void>;
}

/**
 * What a chat store shared by several instances adds (PostgreSQL): turns of one node
 * run in arrival order whichever instance took them, a run executing on another
 * instance is followed live, and a cancel reaches the instance that runs the turn.
 */
export interface ChatCluster {
  /**
   * Resolves once the run is the oldest open run of its node (its turn may start), or
   * once `signal` is aborted (the run was cancelled while it waited).
   */
  awaitTurn(where: RunLocation, signal: AbortSignal): Promise<void>;
  /** Calls `listener` whenever the run may have new events (and after wake-ups may have been lost); returns the remover. */
  watchRun(runId: string, listener: () => void): () => void;
  /** Asks the instance running an open run to cancel it (`by`: who stopped it); false when the run is not open. */
  requestCancel(runId: string, reason: string, by?: string): Promise<boolean>;
  /** Calls `handler` for each cancel asked for (on any instance) of a run this instance runs. */
  onCancel(handler: (runId: string, reason: string, by: string | undefined) => void): () => void;
  /** Delegations between runs of different instances. */
  readonly delegations: SharedDelegations;
}

/**
 * What instances sharing a store know together about delegations (API.md §10): a
 * container's delegation may reach any instance, while the delegating run executes on
 * one. The store keeps each run's parent, root and starter (`startRun`), counts each
 * run's delegations, and carries the notes an instance leaves for the one that runs the
 * delegating turn (which shows them in its stream).
 */
export interface SharedDelegations {
  /** The lineage of an open run (undefined once it ended, or when unknown). */
  lineage(runId: string): Promise<RunLineage | undefined>;
  /** Takes one of an open run's `limit` delegations: false when it has taken them all (or it ended). */
  take(runId: string, limit: number): Promise<boolean>;
  /** Gives back a delegation taken for one that did not start. */
  giveBack(runId: string): Promise<void>;
  /** The open runs of a structure, each node's in queue order. */
  openRuns(structureId: string): Promise<OpenRunLink[]>;
  /** The open runs a run delegated. */
  openChildren(runId: string): Promise<string[]>;
  /** The run that delegated a run (undefined for a root run or an unknown one). */
  parentOf(runId: string): Promise<string | undefined>;
  /** Leaves a note for the instance that runs `runId` (delivered once). */
  note(runId: string, note: DelegationNote): Promise<void>;
  /**
   * Calls `handler` with the notes left for each run this instance runs (each note is
   * handed over once); `runsHere` says which runs those are. Returns the remover.
   */
  onNotes(runsHere: (runId: string) => boolean, handler: (runId: string, notes: DelegationNote[]) => void): () => void;
}

/** What a store keeps about a run beside its messages. */
export interface RunFacts {
  /** Who started the root run of the run's chain, when a person did (user id). */
  startedBy?: string;
}

/** Storage of chat messages and run events. */
export interface ChatStore {
  /** Present when several instances share the store. */
  readonly cluster?: ChatCluster;
  /**
   * Records a new run: its location, the user message (with `delegated_by` on a delegated
   * turn) and the agent message's start, durably; a shared store keeps `facts` too.
   */
  startRun(where: RunLocation, user: UserMessageRecord, start: AgentStartRecord, facts?: RunFacts): Promise<void>;
  /** The writer of a started run's events. */
  eventWriter(where: RunLocation): RunEventWriter;
  /** Records the end of a run (its agent message's end) and that it is no longer open. */
  endRun(where: RunLocation, end: AgentEndRecord): Promise<void>;
  /** Where a run belongs, for runs of any process; undefined when unknown. */
  locate(runId: string): Promise<RunLocation | undefined>;
  /**
   * Runs whose id starts with `prefix` (lowercase, at least `RUN_PREFIX_MIN` characters
   * of a UUID's spelling) within `scope`, ordered by id, at most `limit`.
   */
  findRuns(prefix: string, scope: RunSearchScope, limit: number): Promise<RunLocation[]>;
  /** The events of a run after `afterSeq`, in order. */
  events(runId: string, afterSeq: number): Promise<EncodedEvent[]>;
  /**
   * The same events as SSE frames (`id: <seq>`, `data: <json>`, blank line), read a part at
   * a time: what a replay streams, so that its memory does not grow with the run.
   */
  eventFrames(runId: string, afterSeq: number): AsyncIterable<Buffer>;
  /** A page of a node's messages, newest first (agent messages without their events). */
  messages(where: { structureId: string; nodeId: string }, page: MessagePage): Promise<StoredMessage[]>;
  /** True when the node has a message with this id. */
  hasMessage(where: { structureId: string; nodeId: string }, messageId: string): Promise<boolean>;
  /** Runs started and never ended (by a process that stopped). */
  openRuns(): Promise<RunLocation[]>;
  /** Flushes and releases everything. */
  close(): Promise<void>;
}
