/**
 * The records of the skill library (API.md §4), each declared once: the schema serves
 * route validation and the OpenAPI document, its static type serves the code.
 */
import { Type, type Static } from 'typebox';
import { Nullable, Slug, StringEnum, Timestamp, Uuid } from './common.js';

/** Allowed `status` values, in the order used by error messages. */
export const SKILL_STATUSES = ['draft', 'complete', 'deprecated'] as const;
/** Allowed `difficulty` values. */
export const SKILL_DIFFICULTIES = ['low', 'medium', 'high'] as const;
/** Allowed `learned_by` values. */
export const SKILL_LEARNERS = ['system', 'agent', 'user'] as const;

/** Lifecycle state: only `complete` skills are matched by search; `deprecated` ones are listed only when asked for. */
export const SkillStatusSchema = StringEnum(SKILL_STATUSES);
export type SkillStatus = Static<typeof SkillStatusSchema>;
/** How hard a skill is to carry out. */
export const SkillDifficultySchema = StringEnum(SKILL_DIFFICULTIES);
export type SkillDifficulty = Static<typeof SkillDifficultySchema>;
/** Who wrote the skill: shipped with the system, distilled by an agent, or written by a person. */
export const SkillLearnerSchema = StringEnum(SKILL_LEARNERS);
export type SkillLearner = Static<typeof SkillLearnerSchema>;

const LearnedAt = Type.Optional(
  Type.String({ description: 'ISO 8601 time of the first write; kept on every update. Absent for a hand-written file that does not say (never the file\'s modification time)' }),
);
const ToolUrl = Nullable(Type.String({ description: 'an http(s) URL the local runtime POSTs to, or null' }));
const ScopeId = Type.String({ description: 'when set, the skill is that structure’s own (kept in skills/<structure_id>/), seen by it only' });
const ForkedFrom = Type.String({ description: 'the instance skill this structure skill was forked from; the structure sees the fork instead of it' });

/**
 * The YAML front matter of `<home>/skills/<slug>.md` as stored and returned. Members not
 * listed here are kept on every round-trip.
 */
export const SkillFrontmatterSchema = Type.Object(
  {
    type: Type.Literal('skill'),
    name: Type.String(),
    category: Type.String(),
    difficulty: SkillDifficultySchema,
    tags: Type.Array(Type.String()),
    status: SkillStatusSchema,
    summary: Type.String(),
    learned_by: SkillLearnerSchema,
    learned_at: LearnedAt,
    tool_url: ToolUrl,
    structure_id: Type.Optional(ScopeId),
    forked_from: Type.Optional(ForkedFrom),
    triggers: Type.Optional(
      Type.Array(Type.String(), {
        description: 'example requests a person would type when they need the skill ("the site is down"): indexed as their own, strongly weighted field and named in search reasons',
      }),
    ),
  },
  { title: 'SkillFrontmatter', additionalProperties: true, description: 'YAML front matter; unknown members are kept' },
);
/** The front matter of a skill, unknown members included. */
export type SkillFrontmatter = Static<typeof SkillFrontmatterSchema> & { [member: string]: unknown };

/** One step of a skill body, from a heading `## [<id>] Step <n>: <title>`. */
export const SkillStepSchema = Type.Object({ id: Type.String(), n: Type.Integer(), title: Type.String() }, { title: 'SkillStep' });
export type SkillStep = Static<typeof SkillStepSchema>;

/** A full skill as stored and returned by GET one, POST and restore. */
export const SkillSchema = Type.Object({
  slug: Type.String(),
  frontmatter: SkillFrontmatterSchema,
  body: Type.String({ description: 'markdown; sections headed ## [<step_id>] Step <n>: <title>' }),
  steps: Type.Array(SkillStepSchema),
}, { title: 'Skill' });
/** A full skill record. */
export type Skill = Static<typeof SkillSchema> & { frontmatter: SkillFrontmatter };

/** The compact form of a skill used by the list. */
export const SkillListEntrySchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  category: Type.String(),
  difficulty: SkillDifficultySchema,
  tags: Type.Array(Type.String()),
  summary: Type.String(),
  status: SkillStatusSchema,
  learned_by: SkillLearnerSchema,
  learned_at: LearnedAt,
  tool_url: ToolUrl,
  structure_id: Type.Optional(ScopeId),
  forked_from: Type.Optional(ForkedFrom),
}, { title: 'SkillListEntry' });
export type SkillListEntry = Static<typeof SkillListEntrySchema>;

/** One ranked search result: higher `score` first; `reason` says which terms matched where. */
export const SearchMatchSchema = Type.Object({
  slug: Type.String(),
  score: Type.Number({ description: 'ranking score; higher ranks first' }),
  reason: Type.String({ description: 'which terms matched which fields' }),
}, { title: 'SearchMatch' });
export type SearchMatch = Static<typeof SearchMatchSchema>;

/** A skill file that could not be loaded, with a message safe to show (no absolute path). */
export const SkillProblemSchema = Type.Object({
  file: Type.String({ description: 'path relative to the skills folder, e.g. broken.md' }),
  message: Type.String(),
  line: Type.Optional(Type.Integer({ minimum: 1, description: '1-based line of the file the problem is on, when it has one (a YAML error, an invalid member)' })),
}, { title: 'SkillProblem' });
export type SkillProblem = Static<typeof SkillProblemSchema>;

/** Why a file is in `skills/.deleted/`. */
export const DELETED_REASONS = ['deleted', 'replaced'] as const;

/**
 * A soft-deleted skill waiting in `skills/.deleted/`, or the previous text of a skill an
 * update replaced (kept there too, so no write loses a version).
 */
export const DeletedSkillSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  deleted_at: Timestamp,
  reason: StringEnum(DELETED_REASONS, { description: 'deleted: removed through the API; replaced: the previous version an update kept' }),
  structure_id: Type.Optional(Type.String({ description: 'the structure whose skill it was; absent for an instance skill' })),
}, { title: 'DeletedSkill' });
export type DeletedSkill = Static<typeof DeletedSkillSchema>;

/** A git commit touching a skill file. */
export const SkillCommitSchema = Type.Object({
  commit: Type.String(),
  author: Type.String(),
  date: Type.String({ description: 'ISO 8601 author date' }),
  message: Type.String(),
}, { title: 'SkillCommit' });
export type SkillCommit = Static<typeof SkillCommitSchema>;

/**
 * The front matter a write may send. Every member is optional here and loosely typed:
 * the skill store checks them one by one and names each wrong member
 * (`frontmatter.status must be one of draft, complete, deprecated`).
 */
export const SkillFrontmatterInputSchema = Type.Object(
  {
    type: Type.Optional(Type.String({ description: 'must be "skill"' })),
    name: Type.Optional(Type.String()),
    category: Type.Optional(Type.String()),
    difficulty: Type.Optional(Type.String({ description: 'low, medium or high' })),
    tags: Type.Optional(Type.Array(Type.Unknown({ description: 'a string' }))),
    status: Type.Optional(Type.String({ description: 'draft, complete or deprecated' })),
    summary: Type.Optional(Type.String()),
    learned_by: Type.Optional(Type.String({ description: 'system, agent or user (default user)' })),
    learned_at: Type.Optional(Type.String()),
    tool_url: Type.Optional(Nullable(Type.String())),
    structure_id: Type.Optional(Type.String()),
  },
  { title: 'SkillFrontmatterInput', additionalProperties: true, description: 'YAML front matter; unknown members are kept' },
);

/** Body of `POST /knowledge/skills`: create (201) or update (200). */
export const SkillWriteSchema = Type.Object({
  structure_id: Type.Optional(Type.String({ format: 'uuid', description: 'the structure whose own skill this is; only the instance administrator may leave it out (an instance skill)' })),
  slug: Slug,
  frontmatter: SkillFrontmatterInputSchema,
  body: Type.String(),
}, { title: 'SkillWrite' });
export type SkillWrite = Static<typeof SkillWriteSchema>;

/** `POST /knowledge/skills/{slug}/fork`: the structure that gets its own copy of an instance skill, and the copy's slug. */
export const ForkRequestSchema = Type.Object({
  structure_id: Uuid,
  slug: Type.Optional(Slug),
}, { title: 'ForkRequest' });
export type ForkRequest = Static<typeof ForkRequestSchema>;

/**
 * Conditional-request headers of skill writes (RFC 9110 §13). `If-None-Match: *` creates
 * only; `If-Match` with the `ETag` a GET returned replaces (or deletes) only that version.
 */
export const SkillWriteHeadersSchema = Type.Object({
  'if-none-match': Type.Optional(
    Type.Literal('*', { description: '`*`: create only; 409 already_exists when a skill (or a file that does not parse) has the slug' }),
  ),
  'if-match': Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'ETag(s) of the version the change is based on, or `*` (any existing version); 412 precondition_failed when the skill is another version',
    }),
  ),
});
export type SkillWriteHeaders = Static<typeof SkillWriteHeadersSchema>;

/**
 * Body of `POST /knowledge/search`. `limit` defaults to 5 in the skill store; the schema
 * says so in words rather than with `default`, which generated clients (openapi-typescript)
 * read as "always present" and would make callers send.
 */
export const SearchRequestSchema = Type.Object({
  structure_id: Type.Optional(Uuid),
  query: Type.String({ minLength: 1, maxLength: 1000 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'how many matches at most (default 5)' })),
  explain: Type.Optional(Type.Boolean({ description: 'add `explain`: how the query was read and why each candidate was kept or cut' })),
  why: Type.Optional(Type.Array(Slug, { maxItems: 10, description: 'skills to explain whatever their rank or status (implies explain)' })),
}, { title: 'SearchRequest' });
export type SearchRequest = Static<typeof SearchRequestSchema>;

/** Query of `GET /knowledge/skills`. */
export const SkillListQuerySchema = Type.Object({
  structure_id: Type.Optional(Uuid),
  status: Type.Optional(
    Type.String({ pattern: '^(draft|complete|deprecated)(,(draft|complete|deprecated))*$', description: 'comma list; default complete,draft' }),
  ),
  category: Type.Optional(Type.String({ maxLength: 100 })),
  tag: Type.Optional(Type.String({ maxLength: 100 })),
});
export type SkillListQuery = Static<typeof SkillListQuerySchema>;

/** What an import did, or would do, with one Agent Skills folder. */
export const ImportEntrySchema = Type.Object({
  folder: Type.String({ description: 'the folder of the upload' }),
  slug: Type.String({ description: 'the skill it is (or would be) stored as' }),
  origin: StringEnum(['org', 'foreign', 'unknown'], { description: 'org: exported by org and restored exactly; foreign: converted' }),
  action: StringEnum(['create', 'update', 'unchanged', 'skip']),
  status: Type.Optional(Type.String({ description: 'the status the skill has once imported' })),
  files: Type.Array(Type.String(), { description: 'its files besides SKILL.md' }),
  warnings: Type.Array(Type.String()),
  problem: Type.Optional(Type.String({ description: 'why it is skipped' })),
}, { title: 'SkillImportEntry' });
export type ImportEntry = Static<typeof ImportEntrySchema>;

/** The report of an Agent Skills import: a dry run unless asked otherwise. */
export const ImportReportSchema = Type.Object({
  dry_run: Type.Boolean(),
  skills: Type.Array(ImportEntrySchema),
  problems: Type.Array(Type.Object({ path: Type.String(), message: Type.String() }), { description: 'files of the upload outside any skill folder, or with unsafe paths' }),
}, { title: 'SkillImportReport' });
export type ImportReport = Static<typeof ImportReportSchema>;
const FieldWords = Type.Optional(Type.Array(Type.String()));

/** One query word as the search read it. */
export const ExplainedWordSchema = Type.Object({
  word: Type.String({ description: 'as typed, lowercase' }),
  stem: Type.String(),
  weight: Type.Number({ description: 'how much the word counts, 0–1 (scaled IDF)' }),
  matched_as: Type.Array(
    Type.Object({
      term: Type.String(),
      kind: StringEnum(['exact', 'compound', 'variant', 'prefix', 'fuzzy', 'synonym'] as const),
      via: Type.Optional(Type.String({ description: 'the indexed word the match went through (compound, prefix, typo, synonym)' })),
    }),
    { description: 'index terms it was matched through; empty when no skill has it' },
  ),
}, { title: 'ExplainedWord' });
export type ExplainedWord = Static<typeof ExplainedWordSchema>;

/** One candidate of an explained search: what matched where, the parts of its score, why it was kept or cut. */
export const ExplainedCandidateSchema = Type.Object({
  slug: Type.String(),
  name: Type.String(),
  status: Type.String(),
  kept: Type.Boolean({ description: 'true when it is among the returned matches' }),
  rank: Type.Optional(Type.Integer({ description: 'position among the matches (1-based); absent when cut' })),
  score: Type.Number(),
  reason: Type.String({ description: 'what matched, as one sentence' }),
  why: Type.String({ description: 'why it was kept or cut, as one sentence' }),
  fields: Type.Object(
    { name: FieldWords, tags: FieldWords, triggers: FieldWords, summary: FieldWords, category: FieldWords, intro: FieldWords, steps: FieldWords, body: FieldWords },
    { description: 'query words matched per field' },
  ),
  parts: Type.Object({
    bm25: Type.Number(),
    coverage: Type.Number(),
    bonus: Type.Number(),
    trigger_share: Type.Number(),
    name_share: Type.Number(),
    surface_share: Type.Number(),
    evidence: Type.Number(),
    support: Type.Number(),
  }, { description: 'the parts of the score and of the no-match decision' }),
  contrast: Type.Optional(Type.String({ description: 'stem of a word of its name that goes against the query (an antonym of a query word, or a word the query negates); its score was multiplied by the contrast penalty' })),
  replaces: Type.Optional(Type.String({ description: 'the deprecated skill this one stands in for' })),
}, { title: 'ExplainedCandidate' });
export type ExplainedCandidate = Static<typeof ExplainedCandidateSchema>;

/** The `explain` member of a search response. */
export const SearchExplanationSchema = Type.Object({
  words: Type.Array(ExplainedWordSchema),
  floor: Type.Object(
    { min_evidence: Type.Number(), support_slope: Type.Number(), relative_cut: Type.Number() },
    { description: 'the no-match decision (a best match needs evidence ≥ min_evidence + support_slope × (1 − support)) and the relative cut' },
  ),
  candidates: Type.Array(ExplainedCandidateSchema),
}, { title: 'SearchExplanation' });
export type SearchExplanation = Static<typeof SearchExplanationSchema>;

/** Response of `POST /knowledge/search`. */
export const SearchResponseSchema = Type.Object({
  matches: Type.Array(SearchMatchSchema),
  explain: Type.Optional(SearchExplanationSchema),
}, { title: 'SearchResponse' });
export type SearchResponse = Static<typeof SearchResponseSchema>;

/** Query of `GET /knowledge/gaps`. */
export const GapsQuerySchema = Type.Object({
  structure_id: Type.Optional(Uuid),
  since: Type.Optional(Timestamp),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export type GapsQuery = Static<typeof GapsQuerySchema>;

/** One group of the skill gap report: chat messages that matched nothing or only weakly. */
export const SkillGapSchema = Type.Object({
  key: Type.String({ description: 'the content words shared by the group, stemmed' }),
  count: Type.Integer({ description: 'searches in the group' }),
  outcome: StringEnum(['none', 'weak'] as const, { description: 'none: nothing matched; weak: only weak matches' }),
  first_seen: Timestamp,
  last_seen: Timestamp,
  example: Type.String({ description: 'the most recent message of the group' }),
  messages: Type.Array(Type.String(), { description: 'up to three distinct messages, most recent first' }),
  candidates: Type.Array(Type.Object({ slug: Type.String(), score: Type.Number() }), { description: 'what the most recent search came closest to' }),
}, { title: 'SkillGap' });
export type SkillGap = Static<typeof SkillGapSchema>;
