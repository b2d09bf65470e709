/**
 * Validation and normalisation of skill front matter (API.md §4). Every member is
 * checked and reported as a precise field error (`frontmatter.status`); members the
 * contract does not name are copied through untouched so they survive a round-trip.
 */
import type { FieldError } from '../errors.js';
import {
  SKILL_DIFFICULTIES,
  SKILL_LEARNERS,
  SKILL_STATUSES,
  type SkillDifficulty,
  type SkillFrontmatter,
  type SkillLearner,
  type SkillStatus,
} from './types.js';

/** Values used for members that are absent; `type`, `name` and `status` have none. */
export interface FrontmatterDefaults {
  learned_by: SkillLearner;
  learned_at: string;
  category: string;
  difficulty: SkillDifficulty;
}

/** Outcome of {@link validateFrontmatter}: a normalised front matter or field errors. */
export type FrontmatterResult =
  | { ok: true; frontmatter: SkillFrontmatter }
  | { ok: false; errors: FieldError[] };

const KNOWN = new Set([
  'type',
  'name',
  'category',
  'difficulty',
  'tags',
  'status',
  'summary',
  'learned_by',
  'learned_at',
  'tool_url',
  'structure_id',
]);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;
const NAME_MAX = 200;

const oneOf = (values: readonly string[]): string => `must be one of ${values.join(', ')}`;

/** True for plain objects (what YAML mappings and JSON objects parse to). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Checks every member of `raw` and fills absent optional members from `defaults`.
 * Unknown members are kept (members whose value is `undefined` are dropped, since YAML
 * cannot hold them).
 *
 * @example
 * validateFrontmatter({ type: 'skill', name: 'X', status: 'done' }, defaults)
 * // → { ok: false, errors: [{ path: 'frontmatter.status', message: 'must be one of draft, complete, deprecated' }] }
 */
export function validateFrontmatter(raw: unknown, defaults: FrontmatterDefaults): FrontmatterResult {
  if (!isPlainObject(raw)) {
    return { ok: false, errors: [{ path: 'frontmatter', message: 'must be an object' }] };
  }
  const errors: FieldError[] = [];
  const fail = (member: string, message: string): void => {
    errors.push({ path: `frontmatter.${member}`, message });
  };

  if (raw.type !== 'skill') fail('type', 'must be "skill"');

  const name = raw.name;
  if (typeof name !== 'string' || name.trim() === '') fail('name', 'must be a non-empty string');
  else if (name.length > NAME_MAX) fail('name', `must be at most ${NAME_MAX} characters`);

  const category = raw.category ?? defaults.category;
  if (typeof category !== 'string') fail('category', 'must be a string');

  const difficulty = raw.difficulty ?? defaults.difficulty;
  if (!(SKILL_DIFFICULTIES as readonly unknown[]).includes(difficulty)) fail('difficulty', oneOf(SKILL_DIFFICULTIES));

  const status = raw.status;
  if (!(SKILL_STATUSES as readonly unknown[]).includes(status)) fail('status', oneOf(SKILL_STATUSES));

  const tags = raw.tags ?? [];
  if (!Array.isArray(tags)) fail('tags', 'must be a list of strings');
  else tags.forEach((tag, i) => {
    if (typeof tag !== 'string') fail(`tags[${i}]`, 'must be a string');
  });

  const summary = raw.summary ?? '';
  if (typeof summary !== 'string') fail('summary', 'must be a string');

  const learnedBy = raw.learned_by ?? defaults.learned_by;
  if (!(SKILL_LEARNERS as readonly unknown[]).includes(learnedBy)) fail('learned_by', oneOf(SKILL_LEARNERS));

  const learnedAt = normaliseTimestamp(raw.learned_at ?? defaults.learned_at);
  if (learnedAt === undefined) fail('learned_at', 'must be an ISO 8601 timestamp');

  const toolUrl = raw.tool_url ?? null;
  if (toolUrl !== null && !isHttpUrl(toolUrl)) fail('tool_url', 'must be an http(s) URL or null');

  const structureId = raw.structure_id ?? undefined;
  if (structureId !== undefined && (typeof structureId !== 'string' || structureId.trim() === '')) {
    fail('structure_id', 'must be a non-empty string');
  }

  if (errors.length > 0) return { ok: false, errors };

  const frontmatter: SkillFrontmatter = {
    type: 'skill',
    name: name as string,
    category: category as string,
    difficulty: difficulty as SkillDifficulty,
    tags: [...(tags as string[])],
    status: status as SkillStatus,
    summary: summary as string,
    learned_by: learnedBy as SkillLearner,
    learned_at: learnedAt as string,
    tool_url: toolUrl as string | null,
  };
  if (structureId !== undefined) frontmatter.structure_id = structureId as string;
  for (const [member, value] of Object.entries(raw)) {
    if (!KNOWN.has(member) && value !== undefined) frontmatter[member] = value;
  }
  return { ok: true, frontmatter };
}

/** A YAML timestamp (parsed to a Date) or an ISO 8601 string → ISO string; otherwise undefined. */
function normaliseTimestamp(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  if (typeof value !== 'string' || !ISO_DATE.test(value) || Number.isNaN(Date.parse(value))) return undefined;
  return value;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
