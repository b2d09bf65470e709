/**
 * The `reason` of a match: one short sentence saying what matched where, e.g.
 * `matched trigger "site is down"`, `matched "chase" and "invoices" in the name,
 * "overdue" in the tags`, or for a deprecated skill's successor `replaces deprecated
 * "paper-expense-claims", whose name matched "paper" and "expense"`.
 */
import { splitWords, stemOf } from './analysis.js';
import type { QueryPlan } from './plan.js';
import type { RankedCandidate, WordMatch } from './ranking.js';
import type { SearchField } from './tuning.js';

/** Fields from the most to the least telling, and how a sentence names them. */
const FIELD_ORDER: readonly SearchField[] = ['name', 'triggers', 'tags', 'summary', 'body'];
const FIELD_LABEL: Record<SearchField, string> = {
  name: 'the name',
  triggers: 'a trigger',
  tags: 'the tags',
  summary: 'the summary',
  body: 'the body',
};

/** A trigger share at or above this reads as "matched trigger …". */
const TRIGGER_SENTENCE = 0.75;
const MAX_GROUPS = 3;

/** How an indexed term is written (the library's shortest word with that stem). */
export type SurfaceOf = (term: string) => string;

/** How one matched word is quoted: the word, or the word and what it was read as. */
function quote(match: WordMatch, plan: QueryPlan, surfaceOf: SurfaceOf): string {
  const typed = plan.concepts[match.concept]?.word ?? match.term;
  const written = match.via ?? surfaceOf(match.term);
  switch (match.kind) {
    case 'exact':
      return `"${typed}"`;
    case 'compound':
      return `"${match.phrase ?? typed}" (as "${written}")`;
    case 'fuzzy':
      return `"${typed}" (read as "${written}")`;
    case 'prefix':
      return `"${typed}" (as in "${written}")`;
    case 'variant':
    case 'synonym':
      return `"${typed}" (as "${written}")`;
  }
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** What matched, grouped by each word's most telling field. */
export function matchedPhrase(words: WordMatch[], plan: QueryPlan, surfaceOf: SurfaceOf): string {
  const groups = new Map<SearchField, string[]>();
  for (const match of [...words].sort((a, b) => a.concept - b.concept)) {
    const field = FIELD_ORDER.find((f) => match.fields.includes(f)) ?? 'body';
    const group = groups.get(field) ?? [];
    group.push(quote(match, plan, surfaceOf));
    groups.set(field, group);
  }
  const ordered = FIELD_ORDER.filter((f) => groups.has(f));
  const parts = ordered.slice(0, MAX_GROUPS).map((f) => `${list(groups.get(f) as string[])} in ${FIELD_LABEL[f]}`);
  const rest = ordered.slice(MAX_GROUPS).reduce((sum, f) => sum + (groups.get(f)?.length ?? 0), 0);
  if (rest > 0) parts.push(`${rest} more word${rest === 1 ? '' : 's'} elsewhere`);
  return list(parts);
}

/**
 * Why the candidate's name goes against the query, as the end of the sentence:
 * `but its name says "renew", which the query negates` or `but its name says "fire",
 * the opposite of "hire"`; empty when it does not.
 */
export function contrastPhrase(candidate: RankedCandidate, plan: QueryPlan, name: string): string {
  if (candidate.contrast === undefined) return '';
  const contrast = plan.contrasts.get(candidate.contrast);
  if (!contrast) return '';
  const written = splitWords(name).find((word) => stemOf(word) === candidate.contrast) ?? candidate.contrast;
  if (contrast.negated) return `, but its name says "${written}", which the query negates`;
  const asked = plan.concepts.find((c) => c.stem === contrast.of)?.word ?? contrast.of;
  return `, but its name says "${written}", the opposite of "${asked}"`;
}

/** The one-sentence reason of a ranked candidate. */
export function reasonOf(candidate: RankedCandidate, plan: QueryPlan, surfaceOf: SurfaceOf): string {
  const matched =
    candidate.trigger && candidate.trigger.share >= TRIGGER_SENTENCE
      ? `matched trigger "${candidate.trigger.text}"`
      : candidate.words.length > 0
        ? `matched ${matchedPhrase(candidate.words, plan, surfaceOf)}`
        : 'matched nothing';
  const base = matched + contrastPhrase(candidate, plan, candidate.matchedSkill.entry.name);
  if (candidate.matchedId === candidate.id) return base;
  return `replaces deprecated "${candidate.matchedSkill.entry.slug}", which ${base}`;
}
