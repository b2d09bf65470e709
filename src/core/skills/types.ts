/**
 * The shapes of the skill library (API.md §4). Each record is declared once as a schema
 * in `core/schemas/skills.ts`; these are their static types, re-exported for the domain.
 */
export {
  SKILL_DIFFICULTIES,
  SKILL_LEARNERS,
  SKILL_STATUSES,
  type DeletedSkill,
  type SearchMatch,
  type Skill,
  type SkillCommit,
  type SkillDifficulty,
  type SkillFrontmatter,
  type SkillLearner,
  type SkillListEntry,
  type SkillProblem,
  type SkillStatus,
  type SkillStep,
} from '../schemas/skills.js';
