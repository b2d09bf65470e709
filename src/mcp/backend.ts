/**
 * What the MCP tools need from org, as one interface with two implementations: the
 * in-process App (Streamable HTTP at `/mcp`) and the HTTP API (`org mcp` over stdio).
 * Both are bound to one node key, so every call acts for that key's node.
 */
import type { ChatEvent } from '../core/chat/index.js';
import type { ChatAttachment, Skill } from '../core/schemas/index.js';
import type { SearchMatch, SkillListEntry } from '../core/skills/index.js';

/** A chat attachment as the `do` tool takes it (the API's shape). */
export type ToolAttachment = ChatAttachment;

/** The outcome of a turn. */
export interface TurnOutcome {
  run_id: string;
  status: 'complete' | 'error';
  /** The summary of a complete turn, or the message of an error. */
  summary: string;
  artifacts: string[];
  /** Download URLs of the artifacts (same order; they need the key as bearer). */
  artifact_urls: string[];
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

/** Follows a running turn. */
export interface TurnWatcher {
  /** Called for every event of the turn, in order (progress notifications). */
  onEvent?: (event: ChatEvent, seq: number) => void;
  /** Stops waiting (the turn itself goes on). */
  signal?: AbortSignal;
}

/** The org operations behind the MCP tools, for one node key. */
export interface OrgToolBackend {
  /** Runs a turn for the key's node and resolves when it ends. */
  runTurn(input: { message: string; attachments?: ToolAttachment[] }, watcher?: TurnWatcher): Promise<TurnOutcome>;
  /** The skill list of the key's structure. */
  listSkills(): Promise<SkillListEntry[]>;
  /** The key's own node and the other nodes of its structure. */
  listPeers(): Promise<{ self: { role_id: string; label: string }; peers: Peer[] }>;
  /** Ranked skill matches for the key's structure. */
  searchSkills(query: string, limit?: number): Promise<SearchMatch[]>;
  /** One skill visible to the key's structure. */
  readSkill(slug: string): Promise<ToolSkill>;
}

/** A failure whose message is meant for the MCP client (returned as a tool error). */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}
