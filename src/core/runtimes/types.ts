/**
 * The `AgentRuntime` interface: what runs one turn for a node. The local playbook
 * runner, the container relay and the LLM runtime implement it, and one shared
 * contract suite tests each of them.
 */
import type { StoredMessage } from '../chat/store.js';
import type { DelegateResult, DelegatedBy, DelegationAccess } from '../schemas/delegation.js';
import type { EventInput, RelayedEvent } from '../chat/types.js';

export type { RelayedEvent };

/** A skill as handed to a runtime: its match and its steps with their text. */
export interface TurnSkill {
  slug: string;
  name: string;
  score: number;
  status: string;
  tool_url: string | null;
  summary: string;
  steps: { id: string; n: number; title: string; text: string }[];
}

/** A node as described to a runtime. */
export interface TurnNode {
  id: string;
  role_id: string;
  label: string;
  starting_context: string;
  parent: { role_id: string; label: string } | null;
  /** At most `ENRICH_NEIGHBOURS` (50) of the node's children. */
  children: { role_id: string; label: string }[];
  /** How many children the node has (listed or not). */
  children_total: number;
  /** At most `ENRICH_NEIGHBOURS` (50) nodes sharing the node's parent. */
  peers: { role_id: string; label: string }[];
  /** How many peers the node has (listed or not). */
  peers_total: number;
}

/** The enriched turn (API.md §6 "Routing"). */
export interface Turn {
  run_id: string;
  structure: { id: string; name: string };
  node: TurnNode;
  message: string;
  attachments: { name: string; content_type: string; size: number; path: string }[];
  skills: TurnSkill[];
  /** The skill named by `/<slug>`, when the message starts with one. */
  explicit_skill: string | null;
  /**
   * Recent messages of the node, newest first: their text, summary and status, without
   * the events of agent messages (those stay in the history; a turn does not carry them).
   * A text longer than `ENRICH_TEXT` characters is cut, marked `text_truncated`.
   */
  history: StoredMessage[];
  /** On a delegated turn: who handed it over (see `HistoryMessage.delegated_by`). */
  delegated_by?: DelegatedBy;
  /** On a delegated turn: the message of the root run of its chain (what was first asked). */
  root_message?: string;
  /**
   * W3C trace context of the run (`traceparent`, `tracestate`) when traces are on.
   * Container runtimes send it as request headers, not in the body.
   */
  trace_context?: Record<string, string>;
}

/** Services a runtime may use while running a turn. */
export interface TurnTools {
  /** Searches the skill library as the chat lookup does. */
  searchSkills(query: string, limit?: number): Promise<{ slug: string; score: number; reason: string }[]>;
  /** Reads a skill by slug (any status). */
  readSkill(slug: string): Promise<{ slug: string; frontmatter: Record<string, unknown>; body: string } | undefined>;
  /** Writes a file to the node's artifact shelf; returns its stored name. */
  writeArtifact(name: string, content: string | Buffer, contentType: string): Promise<string>;
  /**
   * Hands a task to another node of the structure and waits for its turn to end (API.md
   * §10). The engine shows the delegation in the turn's stream (`tool_call` and
   * `tool_result` of tool `delegate`): a runtime emits no events of its own for it. A
   * refused delegation resolves at once with `status: "error"` and why.
   */
  delegate(roleId: string, message: string): Promise<DelegateResult>;
  /** The turn's node and the other nodes of its structure, with their state and parent. */
  listPeers(): Promise<PeerList>;
  /**
   * The run-scoped credentials with which an agent outside the process (a container)
   * delegates over HTTP; issued on the first call, ended with the run. Absent when the
   * service hands out none.
   */
  delegationAccess?(): Promise<DelegationAccess>;
}

/** A node as `list_peers` describes it. */
export interface PeerInfo {
  role_id: string;
  label: string;
  state: 'idle' | 'working';
  /** Role id of its parent; null for the root. */
  parent: string | null;
}

/** The answer of `list_peers`: the turn's own node and every other node of the structure. */
export interface PeerList {
  self: PeerInfo;
  peers: PeerInfo[];
}

/**
 * Emits one event of the turn; returns once it is recorded. A relay may pass the JSON
 * text the event was parsed from (`raw`) and that parse (`parsed`): when it holds
 * exactly the validated members, the engine reuses the text instead of serialising again.
 */
export type Emit = ((event: EventInput, raw?: string, parsed?: unknown) => Promise<void>) & {
  /**
   * Emits the events of one received chunk together, in order: the engine numbers,
   * stamps, writes (one commit) and sends them (one socket write) as one batch. Present
   * when the engine runs the turn; a relay falls back to one `emit` per event without it.
   */
  batch?: (events: RelayedEvent[]) => Promise<void>;
};

/**
 * Runs turns. `run` emits events and ends by emitting `complete` or `error` (the engine
 * adds an `error` when it does not). It must stop promptly when `signal` aborts.
 */
export interface AgentRuntime {
  readonly name: string;
  run(turn: Turn, emit: Emit, tools: TurnTools, signal: AbortSignal): Promise<void>;
}
