/**
 * What the chat engine needs from the rest of the system, as narrow interfaces wired
 * in app.ts: the skill library, the structures its nodes live in and the workspace log.
 */
import type { TurnSkill } from '../runtimes/types.js';
import type { DelegationAccess } from '../schemas/delegation.js';
import type { LogEntry, NodeRecord } from '../structures/types.js';

/** A skill match as the chat engine reads it (the same members as the API's `SearchMatch`). */
export interface SkillMatch {
  slug: string;
  score: number;
  reason: string;
}

/** A draft learned from a turn. */
export interface LearnedDraft {
  structureId: string;
  slug: string;
  name: string;
  body: string;
  summary: string;
  tags: string[];
  category: string;
  /** Example requests for the draft's `triggers`: the request it was taught for, or the message that produced it. */
  triggers?: string[];
  /** Who wrote its steps: `user` when a person taught them (`/teach`), else `agent` (the default). */
  learnedBy?: 'agent' | 'user';
}

/** The skill library as the chat engine uses it. */
export interface ChatSkills {
  /** The chat lookup: complete skills visible to the structure, above the relevance floor. */
  search(query: string, structureId: string, limit: number, options?: { record?: boolean }): Promise<SkillMatch[]>;
  /** A skill visible to the structure (any status), with its steps' text. */
  read(slug: string, structureId: string, score?: number): Promise<TurnSkill | undefined>;
  /** A skill's full record, for the `read_skill` tool. */
  readRaw(slug: string, structureId: string): Promise<{ slug: string; frontmatter: Record<string, unknown>; body: string } | undefined>;
  /** Stores a learned draft; a taken slug gets a -2, -3 … suffix. Returns the stored slug. */
  learnDraft(draft: LearnedDraft): Promise<string>;
}

/** A structure as the chat engine sees it: its name and its live nodes. */
export interface ChatStructure {
  id: string;
  name: string;
  agents: readonly NodeRecord[];
}

/** The structures and nodes the chat engine works in. */
export interface ChatDirectory {
  /** The live node with `roleId`; throws 404 when there is none. */
  node(structureId: string, roleId: string): NodeRecord;
  /** The structure with its live nodes; throws 404 when unknown. */
  structure(structureId: string): ChatStructure;
  /** Folder of a node's own files (its artifact shelf). */
  nodeDir(structureId: string, nodeId: string): string;
  /** Appends decisions and milestones to the structure's workspace log. */
  appendLog(structureId: string, entries: Omit<LogEntry, 'id' | 'created_at'>[]): Promise<void>;
}

/** Which nodes are working (node `state`). */
export interface ChatActivity {
  /** A turn of the node starts; `workingFor`: the role id of the node that delegated it. */
  begin(nodeId: string, structureId: string, workingFor?: string): void;
  end(nodeId: string, structureId: string): void;
  /** `working` while a turn of the node runs. */
  stateOf(nodeId: string): 'idle' | 'working';
}

/**
 * The run-scoped credentials of container turns (API.md §10 "Delegation"): a bearer that
 * lets the agent delegate over HTTP on behalf of its run, ended when the run ends.
 */
export interface RunCredentials {
  /** Issues the credentials of a running turn (its `delegation` member). */
  issue(where: { runId: string; structureId: string; nodeId: string; roleId: string }): Promise<DelegationAccess>;
  /** Ends every credential of a run (called when the run ends). */
  end(runId: string): void;
}
