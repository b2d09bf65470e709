/**
 * The explanation of a search (`explain: true`): how the query was read, and for every
 * candidate considered (the best ones under the floor and skills asked about by slug
 * included) the query words it matched per field, the parts of its score, and one
 * sentence saying why it was kept or cut. What the web search tester and
 * `org skills search --why` show.
 */
import type { Hidden } from '../visibility.js';
import { STATUS, type DocTable } from './docs.js';
import type { QueryPlan } from './query.js';
import { rankCandidates, wordMatches, type RankedCandidate } from './rank.js';
import { reasonOf } from './reason.js';
import type { ScoreResult, ScoreSource } from './scorer.js';
import type { ExplainedCandidate, ExplainedWord, SearchExplanation } from '../../schemas/skills.js';
import type { SearchField, SearchTuning } from './tuning.js';

export type { ExplainedCandidate, ExplainedWord, SearchExplanation };

/** Inputs of {@link explainSearch}. */
export interface ExplainInput {
  query: string;
  plan: QueryPlan;
  scored: ScoreResult;
  ranked: RankedCandidate[];
  source: ScoreSource;
  tuning: SearchTuning;
  limit: number;
  slugs: string[];
  structureId: string | undefined;
  hidden: Hidden | undefined;
}

/** Candidates listed beyond the matches (best first). */
const LISTED = 10;
const round = (value: number): number => Math.round(value * 1000) / 1000;

/** Builds the explanation. */
export function explainSearch(input: ExplainInput): SearchExplanation {
  const { plan, ranked, source, tuning, limit } = input;
  const docs = source.docs;
  const slugOf = (doc: number) => docs.slugAt(doc);
  const candidates: ExplainedCandidate[] = [];
  let rank = 0;
  const listed = new Set<number>();
  for (const candidate of ranked) {
    const kept = candidate.kept && rank < limit;
    if (kept) rank++;
    const wanted = input.slugs.includes(slugOf(candidate.doc)) || input.slugs.includes(slugOf(candidate.matchedDoc));
    if (!kept && candidates.length >= limit + LISTED && !wanted) continue;
    let why: string;
    if (kept) why = `kept: ranked ${rank}`;
    else if (candidate.kept) why = `cut: ranked below the ${limit} asked for`;
    else why = `cut: ${candidate.cut ?? 'below the floor'}`;
    candidates.push(entry(candidate, kept ? rank : null, why, plan, docs, slugOf));
    listed.add(candidate.doc);
    listed.add(candidate.matchedDoc);
  }

  for (const slug of input.slugs) {
    // Resolved as the structure sees it: another structure's skill reads as no skill at all.
    const doc = docs.resolve(slug, input.structureId, input.hidden);
    if (doc !== undefined && listed.has(doc)) continue;
    candidates.push(doc === undefined ? missing(slug) : unlisted(doc, input, slugOf));
  }

  return {
    words: plan.concepts.map((c) => ({
      word: c.word,
      stem: c.stem,
      weight: round(c.weight),
      matched_as: c.expansions.map((e) => ({ term: e.term, kind: e.kind, ...(e.via !== undefined ? { via: e.via } : {}) })),
    })),
    floor: { min_evidence: tuning.minEvidence, support_slope: tuning.supportSlope, relative_cut: tuning.relativeCut },
    candidates,
  };
}

function entry(
  candidate: RankedCandidate,
  rank: number | null,
  why: string,
  plan: QueryPlan,
  docs: DocTable,
  slugOf: (doc: number) => string,
): ExplainedCandidate {
  const fields: Partial<Record<SearchField, string[]>> = {};
  for (const match of candidate.words) {
    const word = plan.concepts[match.concept]?.word ?? match.term;
    for (const field of match.fields) (fields[field] ??= []).push(word);
  }
  return {
    slug: slugOf(candidate.doc),
    name: docs.names[candidate.doc] ?? '',
    status: docs.statusOf(candidate.doc),
    kept: rank !== null,
    ...(rank !== null ? { rank } : {}),
    score: round(candidate.final),
    reason: reasonOf(candidate, plan, { slugOf, nameOf: (doc) => docs.names[doc] ?? '' }),
    why,
    fields,
    parts: {
      bm25: round(candidate.bm25),
      coverage: round(candidate.coverage),
      bonus: round(candidate.bonus),
      trigger_share: round(candidate.trigger?.share ?? 0),
      name_share: round(candidate.nameShare),
      surface_share: round(candidate.surfaceShare),
      evidence: round(candidate.evidence),
      support: round(candidate.support),
    },
    ...(candidate.contrast !== undefined ? { contrast: candidate.contrast } : {}),
    ...(candidate.matchedDoc !== candidate.doc ? { replaces: slugOf(candidate.matchedDoc) } : {}),
  };
}

const EMPTY_PARTS: ExplainedCandidate['parts'] = { bm25: 0, coverage: 0, bonus: 0, trigger_share: 0, name_share: 0, surface_share: 0, evidence: 0, support: 0 };

function missing(slug: string): ExplainedCandidate {
  return { slug, name: '', status: 'unknown', kept: false, score: 0, reason: 'matched nothing', why: 'cut: no skill has this slug', fields: {}, parts: EMPTY_PARTS };
}

/** A skill asked about that did not make the candidate list: say why. */
function unlisted(doc: number, input: ExplainInput, slugOf: (doc: number) => string): ExplainedCandidate {
  const { source, plan, tuning } = input;
  const docs = source.docs;
  const figures = input.scored.watched.get(doc);
  const status = docs.status[doc];
  let why: string;
  if (status === STATUS.draft) why = 'cut: it is a draft, and drafts never match on their own (name it with /slug)';
  else if (!figures) why = 'cut: none of the query’s words occur in it';
  else why = 'cut: other skills scored higher';
  if (!figures) {
    return { slug: slugOf(doc), name: docs.names[doc] ?? '', status: docs.statusOf(doc), kept: false, score: 0, reason: 'matched nothing', why, fields: {}, parts: EMPTY_PARTS };
  }
  if (status === STATUS.deprecated) why = 'cut: it is deprecated and names no live successor';
  const [described] = rankCandidates(source, plan, [figures], tuning, input.structureId, input.hidden);
  const candidate: RankedCandidate = described ?? { ...figures, matchedDoc: doc, final: figures.score, words: wordMatches(source, plan, doc), evidence: 0, support: 0, nameShare: 0, surfaceShare: 0, bonus: 0, contrast: undefined, kept: false };
  return entry({ ...candidate, doc, matchedDoc: doc }, null, why, plan, docs, slugOf);
}
