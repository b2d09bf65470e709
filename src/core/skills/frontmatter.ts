/**
 * Validation and normalisation of skill front matter (API.md §4). Every member is
 * checked and reported as a precise field error (`frontmatter.status`); members the
 * contract does not name are copied through untouched so they survive a round-trip.
 */
import type { FieldError } from '../errors.js';
import { isStructureFolderName } from './skill-key.js';
import { isValidSlug } from './slug.js';
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
  /** Absent: a skill that does not say when it was learned has no `learned_at`. */
  learned_at?: string;
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
  'forked_from',
  'triggers',
]);
/** Deepest nesting of front matter values accepted (the front matter itself is level 1). */
export const MAX_FRONTMATTER_DEPTH = 32;
/** Largest front matter accepted, measured as the text of its keys and values. */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;

/** Limits of `triggers`: example requests are short sentences, a handful per skill. */
export const MAX_TRIGGERS = 30;
export const MAX_TRIGGER_LENGTH = 200;
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
 * Checks that a front matter value is neither nested deeper than
 * {@link MAX_FRONTMATTER_DEPTH} nor larger than {@link MAX_FRONTMATTER_BYTES}, without
 * recursion (the value may be thousands of levels deep) and stopping as soon as a limit
 * is passed (YAML aliases can make a small file expand into a huge graph).
 */
export function checkFrontmatterBounds(raw: unknown): FieldError | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value: raw, depth: 1 }];
  let bytes = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (value !== null && typeof value === 'object') {
      if (depth > MAX_FRONTMATTER_DEPTH) {
        return { path: 'frontmatter', message: `must not nest deeper than ${MAX_FRONTMATTER_DEPTH} levels` };
      }
      const entries = Array.isArray(value) ? value.map((item) => ['', item] as const) : Object.entries(value);
      for (const [key, item] of entries) {
        bytes += key.length + 2;
        stack.push({ value: item, depth: depth + 1 });
      }
    } else {
      bytes += typeof value === 'string' ? value.length : 8;
    }
    if (bytes > MAX_FRONTMATTER_BYTES) return { path: 'frontmatter', message: `must be at most ${MAX_FRONTMATTER_BYTES / 1024} KiB` };
  }
  return undefined;
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
  const bounds = checkFrontmatterBounds(raw);
  if (bounds) return { ok: false, errors: [bounds] };
  const errors: FieldError[] = [];
  const fail = (member: string, message: string): void => {
    errors.push({ path: `frontmatter.${member}`, message });
  };

  // YAML and JSON can hold a member named `__proto__`, but the file format cannot write
  // it back (gray-matter merges members by assignment): refuse it rather than lose it.
  if (Object.prototype.hasOwnProperty.call(raw, '__proto__')) fail('__proto__', 'is not allowed as a member name');
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

  const givenAt = raw.learned_at ?? defaults.learned_at;
  const learnedAt = givenAt === undefined ? undefined : normaliseTimestamp(givenAt);
  if (givenAt !== undefined && learnedAt === undefined) fail('learned_at', 'must be an ISO 8601 timestamp');

  const toolUrl = raw.tool_url ?? null;
  if (toolUrl !== null && !isHttpUrl(toolUrl)) fail('tool_url', 'must be an http(s) URL or null');

  const structureId = raw.structure_id ?? undefined;
  if (structureId !== undefined && (typeof structureId !== 'string' || !isStructureFolderName(structureId))) {
    fail('structure_id', 'must be the id of a structure (a lowercase UUID), or absent for an instance skill');
  }

  const forkedFrom = raw.forked_from ?? undefined;
  if (forkedFrom !== undefined && !isValidSlug(forkedFrom)) fail('forked_from', 'must be the slug of the instance skill it was forked from');

  const triggers = raw.triggers ?? undefined;
  if (triggers !== undefined) {
    if (!Array.isArray(triggers)) fail('triggers', 'must be a list of example requests (strings)');
    else {
      if (triggers.length > MAX_TRIGGERS) fail('triggers', `must hold at most ${MAX_TRIGGERS} example requests`);
      triggers.forEach((trigger, i) => {
        if (typeof trigger !== 'string' || trigger.trim() === '') fail(`triggers[${i}]`, 'must be a non-empty string');
        else if (trigger.length > MAX_TRIGGER_LENGTH) fail(`triggers[${i}]`, `must be at most ${MAX_TRIGGER_LENGTH} characters`);
      });
    }
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
    ...(learnedAt !== undefined ? { learned_at: learnedAt } : {}),
    tool_url: toolUrl as string | null,
  };
  if (structureId !== undefined) frontmatter.structure_id = structureId as string;
  if (forkedFrom !== undefined) frontmatter.forked_from = forkedFrom as string;
  if (triggers !== undefined) frontmatter.triggers = (triggers as string[]).map((t) => t.trim());
  for (const [member, value] of Object.entries(raw)) {
    if (!KNOWN.has(member) && value !== undefined) setOwn(frontmatter, member, value);
  }
  return { ok: true, frontmatter };
}

/**
 * Sets an own member whatever its name: plain assignment of `__proto__` would replace
 * the object's prototype and lose the member.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
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
