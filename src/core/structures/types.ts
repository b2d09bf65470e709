/**
 * Records of structures, nodes and members. What the API shows is declared once as a
 * schema in `core/schemas/structures.ts` and re-exported here; the stored structure
 * document, which never leaves the server, is declared here from those records.
 */
import type { Role } from '../auth/roles.js';
import type { ArchivedNodeRecord, NodeRecord } from '../schemas/structures.js';

export type {
  ArchivedNodeRecord,
  ArchivedStructure,
  LogEntry,
  NewNode,
  Node,
  NodePatch,
  NodeRecord,
  NodeState,
  StructureDetail,
  StructureSummary,
} from '../schemas/structures.js';

/** A member of a structure, as stored. */
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
  /** Set while the structure is deleted into the archive (restorable by an owner); absent while live. */
  archived_at?: string;
}
