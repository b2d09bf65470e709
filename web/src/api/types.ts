/**
 * Shapes of the public API (API.md), as the web UI reads them: the records declared once
 * in the core's schemas (type-only imports, erased from the bundle), so the UI, the
 * server and the document cannot drift.
 */
import type { Problem as ProblemRecord } from '../../../src/core/schemas/index.js';

export type {
  Acceptance,
  ArtifactInfo,
  ArchivedNodeRecord as ArchivedNode,
  ChatEvent,
  DeletedSkill,
  EventPayloads,
  EventType,
  ExplainedCandidate,
  HistoryMessage,
  Invite,
  LogEntry,
  McpKeyCreated as CreatedKey,
  McpKeyListing as KeyListing,
  Member,
  Members,
  Node as OrgNode,
  SearchExplanation,
  SearchMatch,
  Skill,
  SkillCommit,
  SkillListEntry as SkillEntry,
  SkillProblem,
  StructureDetail,
  StructureSummary,
  WhoAmI,
} from '../../../src/core/schemas/index.js';
export type { Role } from '../../../src/core/auth/roles.js';

/** Problem details as the UI holds them: what the server sent, or the status line when it sent none. */
export type Problem = Partial<ProblemRecord> & { status: number };

/** The templates a structure can be created from (API.md §5). */
export const TEMPLATES = ['exec-team', 'sales-team', 'research-lab', 'personal', 'blank'] as const;
