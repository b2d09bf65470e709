/**
 * What the index holds of a skill: the text MiniSearch indexes (name, tags with the
 * category, triggers, summary, body) and what it stores beside it, which is all that
 * listing and ranking read (the list entry, the triggers as written, and for a deprecated
 * skill the hints naming its successor). The stored part is what a warm start restores
 * from the snapshot, so nothing is read from a file whose signature did not change.
 */
import { toListEntry } from '../entry.js';
import { isValidSlug } from '../slug.js';
import type { Skill, SkillListEntry } from '../types.js';
import type { SearchField } from './tuning.js';

/** What the index stores of a skill (MiniSearch's stored field `skill`). */
export interface StoredSkill {
  entry: SkillListEntry;
  /** Example requests (front matter `triggers`), when it has any. */
  triggers?: string[];
  /**
   * For a deprecated skill: what may name its successor, most explicit first: slugs
   * (`superseded_by`, then slugs in its summary and body) and quoted names
   * (`Use "Draft a cold outreach email sequence" instead`).
   */
  successors?: string[];
}

/** One skill as given to MiniSearch. */
export interface SearchDocument {
  /** Its id in the index: `<slug>` for an instance skill, `<structure_id>/<slug>` for a structure's. */
  id: string;
  skill: StoredSkill;
  body: string;
}

/** The id of a skill in the index: its slug, under its structure when it has one. */
export function documentId(slug: string, structureId?: string): string {
  return structureId === undefined ? slug : `${structureId}/${slug}`;
}

/** The search document of a parsed skill, under `id` (default: its id by slug and structure). */
export function toSearchDocument(skill: Skill, id = documentId(skill.slug, skill.frontmatter.structure_id)): SearchDocument {
  const fm = skill.frontmatter;
  const stored: StoredSkill = { entry: toListEntry(skill) };
  const triggers = Array.isArray(fm.triggers) ? fm.triggers.filter((t): t is string => typeof t === 'string') : [];
  if (triggers.length > 0) stored.triggers = triggers;
  if (fm.status === 'deprecated') stored.successors = successorHints(skill);
  return { id, skill: stored, body: skill.body };
}

/** The text of one indexed field (MiniSearch's `extractField`). */
export function fieldText(doc: SearchDocument, field: string): string | undefined {
  const entry = doc.skill.entry;
  switch (field as SearchField | 'id' | 'skill') {
    case 'name':
      return entry.name;
    case 'tags':
      return `${entry.tags.join(' ')} ${entry.category}`;
    case 'triggers':
      return doc.skill.triggers?.join('\n');
    case 'summary':
      return entry.summary;
    case 'body':
      return doc.body;
    default:
      return undefined;
  }
}

/** Most successor hints kept of one skill. */
const MAX_HINTS = 8;
const SLUG_MENTION = /\b[a-z0-9]+(?:-[a-z0-9]+)+\b/g;
/** A name quoted in straight, curly or backtick quotes, 3 to 120 characters. */
const QUOTED = /["“`]([^"“”`\n]{3,120})["”`]/g;

/** What a deprecated skill says its successor is: `superseded_by`, then slugs, then quoted names. */
export function successorHints(skill: Skill): string[] {
  const hints: string[] = [];
  const explicit = skill.frontmatter.superseded_by;
  if (typeof explicit === 'string') hints.push(explicit.trim());
  const texts = [skill.frontmatter.summary, skill.body];
  for (const text of texts) for (const match of text.matchAll(SLUG_MENTION)) if (match[0] !== skill.slug && isValidSlug(match[0])) hints.push(match[0]);
  for (const text of texts) for (const match of text.matchAll(QUOTED)) hints.push((match[1] as string).trim());
  return [...new Set(hints)].filter((hint) => hint.length > 0).slice(0, MAX_HINTS);
}
