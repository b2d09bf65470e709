/**
 * Terminal output of an explained search (`org skills search --why/--explain`): each
 * candidate in one line with its fate, and for the skills asked about the words they
 * matched per field and the parts of their score.
 */
import type { ExplainedCandidate, SearchExplanation } from '../../client/types.js';

const FIELD_NAMES: Record<string, string> = {
  name: 'name',
  tags: 'tags',
  triggers: 'triggers',
  summary: 'summary',
  category: 'category',
  intro: 'introduction',
  steps: 'step titles',
  body: 'steps',
};

/** Lines describing one candidate in detail. */
export function describeCandidate(candidate: ExplainedCandidate, explanation: SearchExplanation): string[] {
  const lines = [`why ${candidate.slug}${candidate.status === 'complete' ? '' : ` (${candidate.status})`}: ${candidate.why.replace(/^(kept|cut): /, '$1, ')}`];
  if (candidate.replaces) lines.push(`   stands in for the deprecated ${candidate.replaces}`);
  if (Object.keys(candidate.fields).length === 0) return lines;
  const fields = Object.entries(candidate.fields).map(([field, words]) => `${FIELD_NAMES[field] ?? field}: ${[...new Set(words ?? [])].join(', ')}`);
  lines.push(`   ${candidate.reason}`);
  if (fields.length > 0) lines.push(`   words per field: ${fields.join(' · ')}`);
  const p = candidate.parts;
  const floor = explanation.floor;
  lines.push(
    `   score ${candidate.score} = BM25F ${p.bm25} weighed by coverage ${p.coverage}, + bonus ${p.bonus} (trigger ${p.trigger_share}, name ${p.name_share}, as written ${p.surface_share})`,
    `   evidence ${p.evidence}, support ${p.support}: a best match needs evidence ${(floor.min_evidence + floor.support_slope * (1 - p.support)).toFixed(2)}`,
  );
  return lines;
}

/** One line per candidate: rank or cut, slug, score, why. */
export function candidateLines(explanation: SearchExplanation): string[] {
  const unread = explanation.words.filter((w) => w.matched_as.length === 0).map((w) => `"${w.word}"`);
  const lines = explanation.candidates.map((c) => `${c.kept ? `${c.rank}.`.padEnd(3) : '-  '} ${c.slug.padEnd(36)} ${c.score.toFixed(2).padStart(7)}  ${c.why}`);
  if (unread.length > 0) lines.push(`no skill contains ${unread.join(', ')}`);
  return lines;
}
