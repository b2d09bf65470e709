/**
 * Shapes of the public API (API.md), as the web UI reads them. The domain records are the
 * server's own types (type-only imports, erased from the bundle), so the two cannot drift.
 */
import type { Role } from '../../../src/core/auth/roles.js';
import type { ChatEvent, EventPayloads, EventType, HistoryMessage } from '../../../src/core/chat/types.js';
import type { ArchivedNodeRecord, LogEntry, Node, StructureDetail, StructureSummary } from '../../../src/core/workspaces/types.js';

export type { ChatEvent, EventPayloads, EventType, HistoryMessage, LogEntry, Role, StructureDetail, StructureSummary };

/** A node of a structure. */
export type OrgNode = Node;

/** An archived node. */
export type ArchivedNode = ArchivedNodeRecord;

/** RFC 9457 problem details. */
export interface Problem {
  type?: string;
  title?: string;
  status: number;
  detail?: string;
  code?: string;
  errors?: { path: string; message: string }[];
  [extra: string]: unknown;
}

/** A skill list entry. */
export interface SkillEntry {
  slug: string;
  name: string;
  category: string;
  difficulty: string;
  tags: string[];
  summary: string;
  status: string;
  learned_by: string;
  learned_at: string;
  tool_url: string | null;
  structure_id?: string;
}

/** A full skill. */
export interface Skill {
  slug: string;
  frontmatter: Record<string, unknown>;
  body: string;
  steps: { id: string; n: number; title: string }[];
}

/** A search match. */
export interface SearchMatch {
  slug: string;
  score: number;
  reason: string;
}

/** A deleted skill. */
export interface DeletedSkill {
  slug: string;
  name: string;
  deleted_at: string;
}

/** A git commit of a skill file. */
export interface SkillCommit {
  commit: string;
  author: string;
  date: string;
  message: string;
}

/** An MCP key as listed. */
export interface KeyListing {
  id: string;
  prefix: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
}

/** The key record returned once on creation. */
export interface CreatedKey {
  id: string;
  token: string;
  prefix: string;
  label: string;
  created_at: string;
}

/** A member of a structure. */
export interface Member {
  user_id: string;
  email: string;
  role: Role;
}

/** A pending invite. */
export interface Invite {
  id: string;
  email: string;
  role: Role;
  status: string;
  expires_at: string;
  created_at?: string;
}

/** The result of accepting an invite. */
export interface Acceptance {
  structure_id: string;
  role: Role;
  user: { id: string; email: string };
  token?: string;
}

/** The templates a structure can be created from (API.md §5). */
export const TEMPLATES = ['exec-team', 'sales-team', 'research-lab', 'personal', 'blank'] as const;
