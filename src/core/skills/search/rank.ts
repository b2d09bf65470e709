/**
 * From MiniSearch's raw results to ranked, explained matches: which query word each
 * matched term stands for and in which fields, how much of the query a skill covers
 * (IDF-weighted), the relevance floor, and the readable `reason`.
 */
import type { SearchResult } from 'minisearch';
import type { SearchMatch } from '../types.js';
import { stemOf } from './analyzer.js';
import type { QueryPlan } from './query-plan.js';
import { SEARCH_FIELDS, type SearchField, type SearchTuning } from './tuning.js';

type MatchKind = 'word' | 'synonym' | 'prefix' | 'fuzzy';

/** One matched document term, attributed to a query word. */
interface Hit {
  kind: MatchKind;
  /** The matched document term. */
  term: string;
  fields: SearchField[];
  /** The synonym that matched, for the reason. */
  via?: string;
}

/** A match with the figures behind its rank (exposed for evaluation and tuning). */
export interface RankedMatch extends SearchMatch {
  evidence: number;
  coverage: number;
}

/** Fields that describe what a skill is for; body text and step titles only support. */
const ANCHOR_FIELDS = new Set<SearchField>(['name', 'tags', 'summary', 'category', 'intro']);
const NAME_LIKE = new Set<SearchField>(['name', 'tags']);
const TITLE_LIKE = new Set<SearchField>(['name', 'tags', 'summary', 'category', 'intro', 'steps']);

/** Scores, filters (relevance floor) and explains raw results, best first. */
export function rankResults(results: SearchResult[], plan: QueryPlan, tuning: SearchTuning): RankedMatch[] {
  const ranked: RankedMatch[] = [];
  for (const result of results) {
    const hits = attribute(result, plan);
    let evidence = 0;
    let anchored = false;
    for (const [index, list] of hits) {
      const conceptWeight = plan.concepts[index]?.weight ?? 0;
      let best = 0;
      for (const hit of list) {
        // A typo is worth what the word it hit is worth; the rest what the query word is.
        const weight = hit.kind === 'fuzzy' ? plan.weightOf(hit.term) : conceptWeight;
        const kindCredit = hit.kind === 'word' ? 1 : hit.kind === 'fuzzy' ? tuning.typoCredit : tuning.looseCredit;
        const fieldCredit = hit.fields.some((f) => NAME_LIKE.has(f))
          ? tuning.nameCredit
          : hit.fields.some((f) => TITLE_LIKE.has(f))
            ? 1
            : tuning.bodyOnlyCredit;
        best = Math.max(best, weight * kindCredit * fieldCredit);
        if (hit.kind !== 'synonym' && hit.fields.some((f) => ANCHOR_FIELDS.has(f))) anchored = true;
      }
      evidence += best;
    }
    const coverage = plan.totalWeight > 0 ? Math.min(1, evidence / plan.totalWeight) : 0;
    if (evidence < tuning.minEvidence || coverage < tuning.minCoverage) continue;
    if (tuning.requireAnchor && !anchored) continue;
    const score = result.score * Math.pow(coverage, tuning.coveragePower);
    ranked.push({ slug: String(result.id), score, reason: explain(hits, plan), evidence, coverage });
  }
  ranked.sort((a, b) => b.score - a.score || a.slug.localeCompare(b.slug));
  const best = ranked[0]?.score ?? 0;
  return ranked
    .filter((match) => match.score >= best * tuning.relativeCut)
    .map((match) => ({ ...match, score: Math.round(match.score * 1000) / 1000 }));
}

/** Maps each matched document term back to the query word it came from. */
function attribute(result: SearchResult, plan: QueryPlan): Map<number, Hit[]> {
  const hits = new Map<number, Hit[]>();
  for (const [docTerm, fields] of Object.entries(result.match)) {
    const source = sourceOf(docTerm, result.queryTerms, plan);
    if (!source) continue;
    const list = hits.get(source.concept) ?? [];
    list.push({ kind: source.kind, term: docTerm, fields: fields as SearchField[], ...(source.via ? { via: source.via } : {}) });
    hits.set(source.concept, list);
  }
  return hits;
}

function sourceOf(
  docTerm: string,
  queryTerms: string[],
  plan: QueryPlan,
): { concept: number; kind: MatchKind; via?: string } | undefined {
  const planned = plan.terms.get(docTerm);
  if (planned) {
    if (planned.kind !== 'synonym') return { concept: planned.concept, kind: 'word' };
    const via = plan.concepts[planned.concept]?.synonyms.get(docTerm);
    return { concept: planned.concept, kind: 'synonym', ...(via ? { via } : {}) };
  }
  const stem = stemOf(docTerm);
  const sameWord = stem === null ? undefined : plan.terms.get(stem);
  if (sameWord && sameWord.kind === 'word') return { concept: sameWord.concept, kind: 'word' };
  let fuzzy: { concept: number; distance: number } | undefined;
  for (const queryTerm of queryTerms) {
    const source = plan.terms.get(queryTerm);
    if (!source) continue;
    if (source.prefix && docTerm.startsWith(queryTerm)) return { concept: source.concept, kind: 'prefix' };
    if (source.kind !== 'typo' || !plausibleTypo(queryTerm, docTerm)) continue;
    const distance = editDistance(queryTerm, docTerm);
    if (!fuzzy || distance < fuzzy.distance) fuzzy = { concept: source.concept, distance };
  }
  return fuzzy && { concept: fuzzy.concept, kind: 'fuzzy' };
}

/** `"invoice" in name, tags; "client" in body (as "customer")`, in query order. */
function explain(hits: Map<number, Hit[]>, plan: QueryPlan): string {
  const parts: string[] = [];
  for (const [index, list] of [...hits.entries()].sort(([a], [b]) => a - b)) {
    const word = plan.concepts[index]?.word ?? '';
    const groups = new Map<string, Set<SearchField>>();
    for (const hit of list) {
      const how = hit.kind === 'synonym' ? ` (as "${hit.via ?? ''}")` : hit.kind === 'word' ? '' : ` (${hit.kind} match)`;
      const fields = groups.get(how) ?? new Set<SearchField>();
      for (const field of hit.fields) fields.add(field);
      groups.set(how, fields);
    }
    const described = [...groups.entries()]
      .sort(([a], [b]) => a.length - b.length)
      .map(([how, fields]) => `${SEARCH_FIELDS.filter((f) => fields.has(f)).join(', ')}${how}`);
    parts.push(`"${word}" in ${described.join(' and ')}`);
  }
  return parts.join('; ');
}

/**
 * MiniSearch's fuzzy matching (Levenshtein, up to 2 edits) finds candidates; a typo
 * is accepted only when it keeps the first letter and is one edit away (a swap of two
 * neighbours counts as one), or two for words of 8 letters or more. That keeps
 * "incidnet" → "incident" and drops "paris" → "pays".
 */
export function plausibleTypo(typed: string, term: string): boolean {
  if (typed.length < 5 || typed[0] !== term[0]) return false;
  return editDistance(typed, term) <= (typed.length >= 8 ? 2 : 1);
}

/** Optimal-string-alignment distance: Levenshtein plus adjacent transpositions (short words only). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}
