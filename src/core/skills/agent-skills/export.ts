/**
 * An org skill as an Agent Skill folder: `SKILL.md` with `name` (the slug, which is
 * also the folder name), a `description` built from the summary and the triggers, the
 * foreign fields an imported skill brought with it, and every org front matter member
 * under namespaced `metadata`; the body kept as it is (its steps untouched), long
 * bodies split into `references/steps/`; the skill's own files beside it.
 */
import { stringifyFrontMatter } from '../front-matter-read.js';
import { normalizeBody } from '../file-format.js';
import type { Skill } from '../types.js';
import { LAYOUT_KEY, splitBody } from './body-split.js';
import { encodeOrgMetadata, isRecord } from './metadata.js';
import { SKILL_FILE, type SkillFolder } from './types.js';
import { AGENT_SKILL_DESCRIPTION_MAX, validateAgentSkill } from './validate.js';

/** The front matter member where an imported skill keeps its foreign `SKILL.md` fields. */
export const AGENT_SKILL_MEMBER = 'agent_skill';

const encoder = new TextEncoder();

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * What the skill does and when to use it, in at most 1,024 characters: the summary
 * (or the name), then the triggers as "Use when: …".
 *
 * @example
 * describeSkill({ name: 'Chase invoices', summary: 'Collect overdue payments.', triggers: ['a customer pays late'] })
 * // → 'Collect overdue payments. Use when: a customer pays late.'
 */
export function describeSkill(frontmatter: Record<string, unknown>): string {
  const summary = typeof frontmatter.summary === 'string' && frontmatter.summary.trim() !== '' ? frontmatter.summary.trim() : String(frontmatter.name ?? '').trim();
  const triggers = Array.isArray(frontmatter.triggers) ? frontmatter.triggers.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : [];
  const what = /[.!?]$/.test(summary) || summary === '' ? summary : `${summary}.`;
  const when = triggers.length > 0 ? ` Use when: ${triggers.map((item) => item.trim().replace(/[.;]+$/, '')).join('; ')}.` : '';
  return clip(`${what}${when}`.trim() || 'An org skill.', AGENT_SKILL_DESCRIPTION_MAX);
}

/**
 * The Agent Skill folder of `skill`, with `files` (its stored files: scripts,
 * references, assets) beside SKILL.md. Throws when the result would not pass the
 * reference validation rules (a programming error: slugs are always valid names).
 */
export function toAgentSkill(skill: Skill, files: ReadonlyMap<string, Uint8Array> = new Map()): SkillFolder {
  const fm = skill.frontmatter as Record<string, unknown>;
  const foreign = isRecord(fm[AGENT_SKILL_MEMBER]) ? fm[AGENT_SKILL_MEMBER] : {};
  const data: Record<string, unknown> = { name: skill.slug, description: describeSkill(fm) };
  for (const field of ['license', 'compatibility', 'allowed-tools'] as const) {
    if (typeof foreign[field] === 'string' && foreign[field] !== '') data[field] = foreign[field];
  }
  const foreignMetadata: Record<string, string> = {};
  if (isRecord(foreign.metadata)) for (const [key, value] of Object.entries(foreign.metadata)) foreignMetadata[key] = String(value);
  data.metadata = { ...foreignMetadata, ...encodeOrgMetadata(fm) };
  const problems = validateAgentSkill(data, skill.slug);
  if (problems.length > 0) throw new Error(`skill ${skill.slug} does not export as an Agent Skill: ${problems.join('; ')}`);

  const out = new Map<string, Uint8Array>();
  for (const [path, bytes] of files) if (path !== SKILL_FILE) out.set(path, bytes);
  const body = normalizeBody(skill.body);
  const split = splitBody(body);
  if (split) {
    (data.metadata as Record<string, string>)[LAYOUT_KEY] = 'split-steps';
    for (const [path, text] of split.files) out.set(path, encoder.encode(text));
  }
  out.set(SKILL_FILE, encoder.encode(stringifyFrontMatter(split?.body ?? body, data)));
  return { name: skill.slug, files: new Map([...out].sort(([a], [b]) => (a === SKILL_FILE ? -1 : b === SKILL_FILE ? 1 : a < b ? -1 : 1))) };
}
