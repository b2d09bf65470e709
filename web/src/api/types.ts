/** Shapes of the public API (API.md), as the web UI reads them. */

/** A collaborator role. */
export type Role = 'viewer' | 'operator' | 'owner';

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

/** A structure summary (list entry). */
export interface StructureSummary {
  id: string;
  name: string;
  role: Role;
  created_at: string;
  node_count: number;
}

/** A node of a structure. */
export interface OrgNode {
  id: string;
  role_id: string;
  label: string;
  parent_id: string | null;
  x: number;
  y: number;
  state: 'idle' | 'working';
  starting_context: string;
  container_url: string | null;
  created_at: string;
}

/** An archived node. */
export type ArchivedNode = Omit<OrgNode, 'state'> & { archived_at: string };

/** A structure with its nodes. */
export interface StructureDetail {
  id: string;
  name: string;
  template: string;
  created_at: string;
  agents: OrgNode[];
}

/** Payloads of the chat event types. */
export interface EventPayloads {
  thought: string;
  text: string;
  tool_call: { tool: string; args: unknown };
  tool_result: { tool: string; result: unknown };
  decision: { title: string; body: string };
  milestone: { title: string };
  skill_learned: { slug: string; name: string; body?: string; summary?: string };
  complete: { summary: string; artifacts: string[] };
  error: { message: string };
}

/** A chat event type. */
export type EventType = keyof EventPayloads;

/** A chat event `{type, content, timestamp}`. */
export type ChatEvent = { [K in EventType]: { type: K; content: EventPayloads[K]; timestamp: string } }[EventType];

/** A chat history message. */
export interface HistoryMessage {
  id: string;
  run_id: string;
  sender: 'user' | 'agent';
  text: string;
  attachments: { name: string; content_type: string; size: number }[];
  events: ChatEvent[];
  summary: string | null;
  artifacts: string[];
  status: 'running' | 'complete' | 'error';
  created_at: string;
  completed_at: string | null;
  origin?: string;
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

/** A workspace log entry. */
export interface LogEntry {
  id: string;
  type: 'decision' | 'milestone';
  title: string;
  body?: string;
  role_id: string;
  node_id: string;
  run_id: string | null;
  created_at: string;
}

/** The templates a structure can be created from (API.md §5). */
export const TEMPLATES = ['exec-team', 'sales-team', 'research-lab', 'personal', 'blank'] as const;
