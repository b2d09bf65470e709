/**
 * Shapes of the public API (API.md), as the web UI reads them: the client's types (every
 * record declared once in the core's schemas; type-only imports, erased from the bundle),
 * under the names the UI uses, so the UI, the client, the server and the document cannot
 * drift.
 */
import type { Problem as ProblemRecord } from '../../../src/core/schemas/index.js';

export type {
  Acceptance,
  ArtifactInfo,
  ArchivedNodeRecord as ArchivedNode,
  ChatEvent,
  CreatedKey,
  CreatedWebhook,
  DeletedSkill,
  ExplainedCandidate,
  HistoryMessage,
  Invite,
  KeyListing,
  LogEntry,
  Member,
  Members,
  Node as OrgNode,
  Role,
  SearchExplanation,
  SearchMatch,
  Skill,
  SkillGap,
  SkillVersion,
  SkillVersionList,
  SkillVersionText,
  SkillListEntry as SkillEntry,
  SkillProblem,
  StructureDetail,
  StructureSummary,
  Webhook,
  WebhookDelivery,
} from '../../../src/client/types.js';

/** Problem details as the UI holds them: what the server sent, or the status line when it sent none. */
export type Problem = Partial<ProblemRecord> & { status: number };

/** The templates a structure can be created from (API.md §5). */
export const TEMPLATES = ['exec-team', 'sales-team', 'research-lab', 'personal', 'blank'] as const;
