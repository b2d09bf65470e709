/** Records of structures, nodes and members as stored and as returned by the API. */
import type { Role } from '../auth/roles.js';

/** Node state: `working` while a turn runs, `idle` otherwise. */
export type NodeState = 'idle' | 'working';

/** A node (agent) of a structure, as stored. */
export interface NodeRecord {
  id: string;
  role_id: string;
  label: string;
  parent_id: string | null;
  x: number;
  y: number;
  starting_context: string;
  container_url: string | null;
  created_at: string;
}

/** A node as returned by the API: the record plus its live state. */
export interface Node extends NodeRecord {
  state: NodeState;
}

/** A node in the archive. */
export interface ArchivedNodeRecord extends NodeRecord {
  archived_at: string;
}

/** A member of a structure. */
export interface MemberRecord {
  user_id: string;
  role: Role;
  added_at: string;
}

/** A structure as stored in `.org/structures/<id>/structure.json`. */
export interface StructureRecord {
  version: 1;
  id: string;
  name: string;
  template: string;
  created_at: string;
  members: MemberRecord[];
  agents: NodeRecord[];
  archive: ArchivedNodeRecord[];
}

/** A structure list entry (with the caller's role). */
export interface StructureSummary {
  id: string;
  name: string;
  role: Role;
  created_at: string;
  node_count: number;
}

/** A structure detail. */
export interface StructureDetail {
  id: string;
  name: string;
  template: string;
  created_at: string;
  agents: Node[];
}

/** Input of node creation (validated shape; rules are checked by the service). */
export interface NewNode {
  role_id: string;
  label: string;
  parent_id?: string | null;
  x?: number;
  y?: number;
  starting_context?: string;
  container_url?: string | null;
}

/** Input of a node update. */
export interface NodePatch {
  label?: string;
  /** role_id of the new parent (moves the node and its subtree). */
  parent?: string;
  /** id of the new parent (the same move, named by id). */
  parent_id?: string;
  x?: number;
  y?: number;
  starting_context?: string;
  container_url?: string | null;
}

/** An entry of the workspace log (decisions and milestones). */
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
