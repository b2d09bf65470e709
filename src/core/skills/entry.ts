/**
 * The list entry of a skill and the listing rules of API.md §4: a structure sees its own
 * skills and the instance skills it has not replaced (see `visibility.ts`), and `list`
 * hides deprecated skills by default.
 */
import type { Skill, SkillListEntry, SkillStatus } from './types.js';
import { isVisible, type Hidden } from './visibility.js';

/** The compact list form of a skill. */
export function toListEntry(skill: Skill): SkillListEntry {
  const fm = skill.frontmatter;
  const entry: SkillListEntry = {
    slug: skill.slug,
    name: fm.name,
    category: fm.category,
    difficulty: fm.difficulty,
    tags: [...fm.tags],
    summary: fm.summary,
    status: fm.status,
    learned_by: fm.learned_by,
    learned_at: fm.learned_at,
    tool_url: fm.tool_url,
  };
  if (fm.structure_id !== undefined) entry.structure_id = fm.structure_id;
  if (fm.forked_from !== undefined) entry.forked_from = fm.forked_from;
  return entry;
}

/** Filters of {@link filterEntries}. */
export interface ListFilter {
  /** The structure asking; without it, only instance skills are listed. */
  structureId?: string;
  /** Statuses to include (default `complete` and `draft`). */
  statuses?: readonly SkillStatus[];
  category?: string;
  /** Only skills carrying this tag. */
  tag?: string;
}

/** Default statuses of a listing: deprecated skills are hidden unless asked for. */
export const DEFAULT_LIST_STATUSES: readonly SkillStatus[] = ['complete', 'draft'];

/** Applies a list filter and sorts by slug; `hidden` holds the instance slugs the structure replaced. */
export function filterEntries(entries: Iterable<SkillListEntry>, filter: ListFilter = {}, hidden?: Hidden): SkillListEntry[] {
  const statuses = filter.statuses && filter.statuses.length > 0 ? filter.statuses : DEFAULT_LIST_STATUSES;
  const out: SkillListEntry[] = [];
  for (const entry of entries) {
    if (!isVisible(entry, filter.structureId, hidden)) continue;
    if (!statuses.includes(entry.status)) continue;
    if (filter.category !== undefined && entry.category !== filter.category) continue;
    if (filter.tag !== undefined && !entry.tags.includes(filter.tag)) continue;
    out.push(entry);
  }
  return out.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}
