/**
 * The shapes of the skill library (API.md §4): the front matter of a skill file, the
 * full skill record, the list entry, a search match and a load problem.
 */

/** Allowed `status` values, in the order used by error messages. */
export const SKILL_STATUSES = ['draft', 'complete', 'deprecated'] as const;
/** Allowed `difficulty` values. */
export const SKILL_DIFFICULTIES = ['low', 'medium', 'high'] as const;
/** Allowed `learned_by` values. */
export const SKILL_LEARNERS = ['system', 'agent', 'user'] as const;

/** Lifecycle state of a skill: only `complete` skills are matched by search. */
export type SkillStatus = (typeof SKILL_STATUSES)[number];
/** How hard a skill is to carry out. */
export type SkillDifficulty = (typeof SKILL_DIFFICULTIES)[number];
/** Who wrote the skill: shipped with the system, distilled by an agent, or written by a person. */
export type SkillLearner = (typeof SKILL_LEARNERS)[number];

/**
 * The YAML front matter of `<home>/skills/<slug>.md`. Members not listed here are kept
 * as they are on every round-trip (index signature).
 */
export interface SkillFrontmatter {
  type: 'skill';
  name: string;
  category: string;
  difficulty: SkillDifficulty;
  tags: string[];
  status: SkillStatus;
  summary: string;
  learned_by: SkillLearner;
  /** ISO 8601 timestamp of the first write; kept on every update. */
  learned_at: string;
  /** An http(s) URL the local runtime POSTs to, or null. */
  tool_url: string | null;
  /** When set, the skill is visible to that structure only. */
  structure_id?: string;
  [member: string]: unknown;
}

/** One step of a skill body, from a heading `## [<id>] Step <n>: <title>`. */
export interface SkillStep {
  id: string;
  n: number;
  title: string;
}

/** A full skill record as stored and returned by GET one / POST. */
export interface Skill {
  slug: string;
  frontmatter: SkillFrontmatter;
  body: string;
  steps: SkillStep[];
}

/** The compact form of a skill used by list endpoints. */
export interface SkillListEntry {
  slug: string;
  name: string;
  category: string;
  difficulty: SkillDifficulty;
  tags: string[];
  summary: string;
  status: SkillStatus;
  learned_by: SkillLearner;
  learned_at: string;
  tool_url: string | null;
  structure_id?: string;
}

/** One ranked search result: higher `score` first; `reason` says which terms matched where. */
export interface SearchMatch {
  slug: string;
  score: number;
  reason: string;
}

/** A skill file that could not be loaded, with a message safe to show (no absolute path). */
export interface SkillProblem {
  /** Path relative to the skills root, e.g. `broken.md`. */
  file: string;
  message: string;
}

/** A soft-deleted skill waiting in `skills/.deleted/`. */
export interface DeletedSkill {
  slug: string;
  name: string;
  /** ISO 8601 time of the deletion. */
  deleted_at: string;
}
