/**
 * What the search index holds of a skill: its text fields, the two facts search filters
 * on (status and structure scope), its triggers as written (named in reasons), and for a
 * deprecated skill the slugs its text points to (where its successor is found).
 */
import { keyOf } from '../skill-key.js';
import type { Skill, SkillStatus } from '../types.js';
import { analyse } from './analyzer.js';
import { SEARCH_FIELDS, type SearchField } from './tuning.js';

/** One indexed skill. */
export interface SearchDocument {
  /** The skill's id in the index: its key, `<slug>` or `<structure_id>/<slug>` (see `skill-key.ts`). */
  key: string;
  slug: string;
  name: string;
  tags: string[];
  /** Example requests a person would type when they need the skill (front matter `triggers`). */
  triggers: string[];
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
  /**
   * For a deprecated skill: slugs that may name its successor, most explicit first
   * (`superseded_by` of the front matter, then slugs mentioned in its summary and body).
   */
  successors?: string[];
}

const SLUG_MENTION = /\b[a-z0-9]+(?:-[a-z0-9]+)+\b/g;

/** The search document of a skill. */
export function toSearchDocument(skill: Skill): SearchDocument {
  const fm = skill.frontmatter;
  const { intro, body } = splitIntro(skill.body);
  const doc: SearchDocument = {
    key: keyOf(skill.slug, fm.structure_id),
    slug: skill.slug,
    name: fm.name,
    tags: fm.tags,
    triggers: Array.isArray(fm.triggers) ? fm.triggers.filter((t): t is string => typeof t === 'string') : [],
    summary: fm.summary,
    category: fm.category,
    steps: skill.steps.map((step) => step.title),
    intro,
    body,
    status: fm.status,
  };
  if (fm.structure_id !== undefined) doc.structure_id = fm.structure_id;
  if (fm.status === 'deprecated') doc.successors = successorHints(skill);
  return doc;
}

/** Slugs a deprecated skill points to: `superseded_by` first, then mentions in summary and body. */
function successorHints(skill: Skill): string[] {
  const hints: string[] = [];
  const explicit = skill.frontmatter.superseded_by;
  if (typeof explicit === 'string') hints.push(explicit.trim());
  for (const text of [skill.frontmatter.summary, skill.body]) {
    for (const match of text.matchAll(SLUG_MENTION)) if (match[0] !== skill.slug) hints.push(match[0]);
  }
  return [...new Set(hints)].slice(0, 8);
}

/** The text of one field of a search document. */
export function fieldText(doc: SearchDocument, field: SearchField): string {
  switch (field) {
    case 'tags':
      return doc.tags.join(' ');
    case 'triggers':
      return doc.triggers.join('\n');
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

/** What the document table keeps of a search document (its text goes to the postings only). */
export type DocumentFacts = Pick<SearchDocument, 'key' | 'name' | 'tags' | 'triggers' | 'status' | 'structure_id' | 'successors'>;

/** A document's text analysed for the postings: per field, stem → frequency; the words seen; field lengths. */
export interface AnalysedDocument {
  /** One map per field of `SEARCH_FIELDS`, in order. */
  fields: Map<string, number>[];
  /** Word as written → its stem. */
  words: Map<string, string>;
  /** Content words per field. */
  lengths: number[];
}

/**
 * Analyses a document's fields (the costly part of indexing, and free of index state, so
 * it can run anywhere: the loader does it in worker threads for a large library).
 */
export function analyseDocument(doc: SearchDocument): AnalysedDocument {
  const fields: Map<string, number>[] = [];
  const words = new Map<string, string>();
  const lengths: number[] = [];
  for (const field of SEARCH_FIELDS) {
    const counts = new Map<string, number>();
    const analysed = analyse(fieldText(doc, field));
    for (const { word, stem } of analysed) {
      counts.set(stem, (counts.get(stem) ?? 0) + 1);
      words.set(word, stem);
    }
    fields.push(counts);
    lengths.push(analysed.length);
  }
  return { fields, words, lengths };
}

/** The facts of a document the document table keeps (what is sent back from a worker). */
export function documentFacts(doc: SearchDocument): DocumentFacts {
  const facts: DocumentFacts = { key: doc.key, name: doc.name, tags: doc.tags, triggers: doc.triggers, status: doc.status };
  if (doc.structure_id !== undefined) facts.structure_id = doc.structure_id;
  if (doc.successors !== undefined) facts.successors = doc.successors;
  return facts;
}
