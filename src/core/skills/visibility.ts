/**
 * Which skills a structure sees (API.md §4, §10): its own skills, and the instance skills
 * it has not replaced. A structure's own skill shadows the instance skill of the same slug
 * (what a fork with the default slug makes), and a skill whose front matter says
 * `forked_from: <slug>` hides that instance skill from its structure too. Another
 * structure's skills are never seen, by any path.
 *
 * The catalog keeps a {@link Shadows} table in step with its records, and both the
 * catalog's listings and the search index ask {@link isVisible} with the set it gives.
 */
import { isValidSlug } from './slug.js';

/** What visibility reads of a skill (a list entry or a front matter carries both). */
export interface ScopedSkill {
  slug: string;
  structure_id?: string | undefined;
  forked_from?: unknown;
}

/** A set of instance slugs a structure does not see. */
export interface Hidden {
  has(slug: string): boolean;
}

const NONE: Hidden = { has: () => false };

/** The instance slugs a structure skill replaces for its structure: its own slug, and what it was forked from. */
export function shadowedBy(skill: ScopedSkill): string[] {
  if (skill.structure_id === undefined) return [];
  const forked = skill.forked_from;
  return isValidSlug(forked) && forked !== skill.slug ? [skill.slug, forked] : [skill.slug];
}

/**
 * True when a structure sees a skill: its own skills, and instance skills whose slug is
 * not in `hidden` (the instance slugs the structure replaced, from {@link Shadows.hiddenFor}).
 * Without a structure only instance skills are seen (nothing is hidden then).
 */
export function isVisible(skill: Pick<ScopedSkill, 'slug' | 'structure_id'>, structureId: string | undefined, hidden: Hidden = NONE): boolean {
  if (skill.structure_id !== undefined) return skill.structure_id === structureId;
  return !hidden.has(skill.slug);
}

/** The instance slugs each structure replaced, counted so that removing one of two replacements keeps the slug hidden. */
export class Shadows {
  private readonly byStructure = new Map<string, Map<string, number>>();

  /** Records that a structure skill is live. */
  add(skill: ScopedSkill): void {
    const structureId = skill.structure_id;
    if (structureId === undefined) return;
    let counts = this.byStructure.get(structureId);
    if (!counts) this.byStructure.set(structureId, (counts = new Map()));
    for (const slug of shadowedBy(skill)) counts.set(slug, (counts.get(slug) ?? 0) + 1);
  }

  /** Records that a structure skill is gone (pass the entry as it was added). */
  remove(skill: ScopedSkill): void {
    const structureId = skill.structure_id;
    if (structureId === undefined) return;
    const counts = this.byStructure.get(structureId);
    if (!counts) return;
    for (const slug of shadowedBy(skill)) {
      const left = (counts.get(slug) ?? 0) - 1;
      if (left > 0) counts.set(slug, left);
      else counts.delete(slug);
    }
    if (counts.size === 0) this.byStructure.delete(structureId);
  }

  /** The instance slugs hidden from `structureId` (empty without a structure). */
  hiddenFor(structureId: string | undefined): Hidden {
    if (structureId === undefined) return NONE;
    // A live view: it follows later changes, and asking costs no copy.
    return { has: (slug) => this.byStructure.get(structureId)?.has(slug) === true };
  }

  /** Forgets everything (a catalog rebuilt from scratch). */
  clear(): void {
    this.byStructure.clear();
  }
}
