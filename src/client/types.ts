/**
 * Shapes of the API as the client sees them (API.md): every record is the core's, declared
 * once in `core/schemas` (imported as types only). What is declared here is the client's
 * own convenience, not a wire record.
 */
import type { SkillListQuery as SkillListWireQuery, SkillStatus, StructureSummary, WhoAmI as Identity } from '../core/schemas/index.js';

export type {
  Acceptance,
  ImportEntry,
  ImportReport,
  ArchivedNodeRecord,
  ArchivedStructure,
  ArtifactInfo,
  ChatAttachment as OutgoingAttachment,
  ChatEvent,
  ChatMessage,
  CreatedStructure,
  CreatedUser,
  EventPayloads,
  DeletedSkill,
  ExplainedCandidate,
  Health,
  HistoryMessage,
  Invite,
  LogEntry,
  McpKeyCreated as CreatedKey,
  McpKeyListing as KeyListing,
  Member,
  Members,
  NewNode,
  Node,
  NodePatch,
  SearchExplanation,
  SearchMatch,
  Skill,
  SkillCommit,
  SkillGap,
  SkillVersion,
  SkillVersionList,
  SkillVersionText,
  SkillFrontmatter,
  SkillListEntry,
  SkillProblem,
  SkillStatus,
  SkillWrite,
  StructureDetail,
  StructurePatch,
  StructureSummary,
  RunMatches,
  SyncResult,
  TimelineEntry,
  WhoAmI as Identity,
} from '../core/schemas/index.js';
export type { AuditEntry, AuditPage, AuditQuery } from '../core/schemas/index.js';
export type { CreatedWebhook, Delivery as WebhookDelivery, DeliveryStatus, Webhook, WebhookCreate } from '../core/schemas/index.js';
export type { Role } from '../core/auth/roles.js';

/** Filters of the skill list; `status` as a list (sent as the comma list of the query). */
export type SkillListQuery = Omit<SkillListWireQuery, 'status'> & { status?: SkillStatus[] };

/** Who the caller is and the structures the token opens (`GET /whoami` plus the structure list). */
export interface WhoAmI {
  kind: Identity['kind'];
  /** The instance administrator: changes the instance skills. */
  admin: boolean;
  email?: string;
  structures: StructureSummary[];
}
