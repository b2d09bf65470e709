/**
 * What the search index holds of a skill: its text fields and the two facts search
 * filters on (status and structure scope).
 */
import type { Skill, SkillStatus } from '../types.js';
import type { SearchField } from './tuning.js';

/** One indexed skill. */
export interface SearchDocument {
  slug: string;
  name: string;
  tags: string[];
  summary: string;
  category: string;
  /** Step titles in order. */
  steps: string[];
  /** The body before its first `##` section (what the skill is for, when to use it). */
  intro: string;
  /** The body from its first `##` section on. */
  body: string;
  status: SkillStatus;
  structure_id?: string;
}

/** The search document of a skill. */
export function toSearchDocument(skill: Skill): SearchDocument {
  const fm = skill.frontmatter;
  const doc: SearchDocument = {
    slug: skill.slug,
    name: fm.name,
    tags: fm.tags,
    summary: fm.summary,
    category: fm.category,
    steps: skill.steps.map((step) => step.title),
    ...splitIntro(skill.body),
    status: fm.status,
  };
  if (fm.structure_id !== undefined) doc.structure_id = fm.structure_id;
  return doc;
}

/** The text of one field of a search document. */
export function fieldText(doc: SearchDocument, field: SearchField): string {
  switch (field) {
    case 'tags':
      return doc.tags.join(' ');
    case 'steps':
      return doc.steps.join('\n');
    default:
      return doc[field];
  }
}

/** Splits a body at its first level-1 or level-2 ATX heading after the opening title. */
export function splitIntro(body: string): { intro: string; body: string } {
  const match = /^#{1,2}[ \t]/m.exec(body.replace(/^\s*# [^\n]*\n/, (title) => ' '.repeat(title.length)));
  if (!match) return { intro: body, body: '' };
  return { intro: body.slice(0, match.index), body: body.slice(match.index) };
}
