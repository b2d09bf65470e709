/**
 * Shapes of the API as the client sees them (API.md). Domain records are the core's own
 * types (imported as types only); the few response envelopes the core does not name are
 * declared here.
 */
import type { McpKeyCreated, McpKeyListing } from '../core/auth/keys.js';
import type { Role } from '../core/auth/roles.js';
import type { ChatEvent, HistoryMessage } from '../core/chat/types.js';
import type { SkillCommit } from '../core/skills/git.js';
import type { DeletedSkill, SearchMatch, Skill, SkillFrontmatter, SkillListEntry, SkillProblem, SkillStatus } from '../core/skills/types.js';
import type { ArchivedNodeRecord, LogEntry, NewNode, Node, NodePatch, StructureDetail, StructureSummary } from '../core/workspaces/types.js';

export type {
  ArchivedNodeRecord,
  ChatEvent,
  DeletedSkill,
  HistoryMessage,
  LogEntry,
  NewNode,
  Node,
  NodePatch,
  Role,
  SearchMatch,
  Skill,
  SkillCommit,
  SkillFrontmatter,
  SkillListEntry,
  SkillProblem,
  SkillStatus,
  StructureDetail,
  StructureSummary,
};

/** `GET /api/org/health`. */
export interface Health {
  status: 'ok';
  version: string;
  skills: number;
}

/** `POST /api/org/structures` → the detail plus the caller's role. */
export interface CreatedStructure extends StructureDetail {
  role: Role;
}

/** A freshly minted MCP key: the token appears only here. */
export type CreatedKey = McpKeyCreated;

/** An MCP key as listed (never its token). */
export type KeyListing = McpKeyListing;

/** A pending invite. */
export interface Invite {
  id: string;
  email: string;
  role: Role;
  status: string;
  created_at: string;
  expires_at: string;
}

/** A member of a structure. */
export interface Member {
  user_id: string;
  email: string;
  role: Role;
}

/** `GET .../members`. */
export interface Members {
  members: Member[];
  invites: { id: string; email: string; role: Role; status: string; expires_at: string }[];
}

/** `POST /api/org/invites/accept`. */
export interface Acceptance {
  structure_id: string;
  role: Role;
  user: { id: string; email: string };
  /** Present when the address had no user yet: shown once. */
  token?: string;
}

/** `POST /api/org/users`. */
export interface CreatedUser {
  user: { id: string; email: string; created_at: string };
  token: string;
}

/** Filters of the skill list. */
export interface SkillListQuery {
  structure_id?: string;
  /** One or more statuses (default on the server: complete and draft). */
  status?: SkillStatus[];
  category?: string;
  tag?: string;
}

/** Body of a skill write. */
export interface SkillWrite {
  structure_id: string;
  slug: string;
  frontmatter: Partial<SkillFrontmatter> & Record<string, unknown>;
  body: string;
}

/** An attachment of a chat message as sent. */
export interface OutgoingAttachment {
  name: string;
  content_base64: string;
  content_type?: string;
}

/** Body of `POST /chat/message` (and `/sync`). */
export interface ChatMessage {
  structure_id: string;
  role_id: string;
  message: string;
  attachments?: OutgoingAttachment[];
}

/** `POST /chat/message/sync`. */
export interface SyncResult {
  run_id: string;
  events: ChatEvent[];
  summary: string;
  artifacts: string[];
}

/** An artifact on a node's shelf. */
export interface ArtifactInfo {
  name: string;
  size: number;
  content_type: string;
  created_at: string;
}

/** `GET /api/org/whoami`: who the bearer is. */
export interface Identity {
  kind: 'admin' | 'user' | 'mcp';
  /** The user of a user token. */
  user?: { id: string; email: string; created_at: string };
  /** The node of an MCP key. */
  key?: { id: string; structure_id: string; role_id: string; label: string };
}

/** Who the caller is and the structures the token opens. */
export interface WhoAmI {
  kind: Identity['kind'];
  email?: string;
  structures: StructureSummary[];
}
