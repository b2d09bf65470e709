/**
 * What the MCP tools, tasks and resources need from org, as one interface with two
 * implementations: the in-process App (Streamable HTTP at `/mcp`) and the HTTP API
 * through the org client (`org mcp` over stdio). Both are bound to one node key, so
 * every call acts for that key's node with that key's rights.
 */
import type { ChatEvent, TraceCarrier } from '../core/chat/index.js';
import type { ChatAttachment, KeyIdentity, Skill } from '../core/schemas/index.js';
import type { SearchMatch, SkillListEntry, agentSkills } from '../core/skills/index.js';

/** A chat attachment as the `do` tool takes it (the API's shape). */
export type ToolAttachment = ChatAttachment;

/** A skill the turn learned and the service stored. */
export interface LearnedSkill {
  slug: string;
  name: string;
}

export interface TurnOutcome {
  run_id: string;
  /** `cancelled` when it was cancelled (its error event says "cancelled"). */
  status: 'complete' | 'error' | 'cancelled';
  /** The summary of a complete turn, or the message of an error. */
  summary: string;
  artifacts: string[];
  /** Skills stored as drafts by this turn. */
  learned: LearnedSkill[];
}

/** A turn as seen at one moment (what `tasks/get` reports). */
export interface TurnSnapshot {
  run_id: string;
  status: 'running' | 'complete' | 'error';
  /** Every event of the turn so far, in order. */
  events: ChatEvent[];
  created_at: string;
  updated_at: string;
}

/** A turn that was just started. */
export interface StartedTurn {
  run_id: string;
  created_at: string;
  /** Replays the events so far, then follows live ones; returns the function that stops following. */
  follow(listener: (event: ChatEvent, seq: number) => void): () => void;
  /** Settles with the outcome once the turn has ended. */
  done: Promise<TurnOutcome>;
}

/** Another node of the key's structure. */
export interface Peer {
  role_id: string;
  label: string;
  state: string;
  /** role_id of the parent node; null for the root. */
  parent: string | null;
}

/** A skill as `read_skill` returns it: the API's full skill. */
export type ToolSkill = Skill;

/** An artifact's bytes. */
export interface ArtifactContent {
  name: string;
  content_type: string;
  data: Uint8Array;
}

/** The node a key belongs to. */
export type { KeyIdentity };

/** The org operations behind the MCP surface, for one node key. */
export interface OrgToolBackend {
  readonly identity: KeyIdentity;
  /**
   * Starts a turn for the key's node (it runs whether or not anyone follows it).
   * `traceContext`: the caller's W3C trace context from the request's `_meta`, which the
   * run's trace continues.
   */
  startTurn(input: { message: string; attachments?: ToolAttachment[]; traceContext?: TraceCarrier }): Promise<StartedTurn>;
  /** A turn of the key's node; undefined when unknown or another node's. */
  inspectTurn(runId: string): Promise<TurnSnapshot | undefined>;
  /** Settles with the outcome once the turn of the key's node has ended; undefined when unknown. */
  awaitTurn(runId: string, signal?: AbortSignal): Promise<TurnOutcome | undefined>;
  /** Cancels a running turn of the key's node (its runtime stops); false when it had already ended. */
  cancelTurn(runId: string): Promise<boolean>;
  /** The skill list of the key's structure. */
  listSkills(): Promise<SkillListEntry[]>;
  /** The key's own node and the other nodes of its structure. */
  listPeers(): Promise<{ self: Peer; peers: Peer[] }>;
  /** Ranked skill matches for the key's structure. */
  searchSkills(query: string, limit?: number): Promise<SearchMatch[]>;
  /** One skill visible to the key's structure. */
  readSkill(slug: string): Promise<ToolSkill>;
  /** An artifact of the key's node; undefined when there is none of that name. */
  readArtifact(name: string): Promise<ArtifactContent | undefined>;
  /** The HTTP download URL of an artifact of the key's node (the key is the bearer). */
  artifactUrl(name: string): string;
  /** Slugs of the complete skills visible to the key's structure, sorted. */
  completeSkills(): Promise<string[]>;
  /** The Agent Skill folder of a complete skill visible to the key's structure. */
  skillFolder(slug: string): Promise<agentSkills.SkillFolder | undefined>;
}

/** A failure whose message is meant for the MCP client (returned as a tool error). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
