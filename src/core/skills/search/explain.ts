/**
 * The explanation of a search (`explain: true`): how the query was read, and for every
 * candidate considered (the best ones under the floor and skills asked about by slug
 * included) the query words it matched per field (MiniSearch's `match`), the parts of its
 * score, and one sentence saying why it was kept or cut. What the web search tester and
 * `org skills search --why` show.
 */
import type { ExplainedCandidate, ExplainedWord, SearchExplanation } from '../../schemas/skills.js';
import type { StoredSkill } from './document.js';
import type { QueryPlan } from './plan.js';
import type { RankedCandidate } from './ranking.js';
import { reasonOf, type SurfaceOf } from './reason.js';
import type { SearchField, SearchTuning } from './tuning.js';

export type { ExplainedCandidate, ExplainedWord, SearchExplanation };

/** A skill asked about by slug ("why didn't this skill match?"), as the index found it. */
export interface WatchedSkill {
  slug: string;
  /** Its id and stored record; undefined when no skill visible to the asker has the slug. */
  id?: string;
  skill?: StoredSkill;
  /** Why it cannot match whatever the query (a draft, another structure's, shadowed), if so. */
  excluded?: string;
  /** Its figures when the query reached it, ranked like any candidate. */
  figures?: RankedCandidate;
}

/** Inputs of {@link explainSearch}. */
export interface ExplainInput {
  plan: QueryPlan;
  ranked: RankedCandidate[];
  tuning: SearchTuning;
  limit: number;
  watched: WatchedSkill[];
  surfaceOf: SurfaceOf;
}

/** Candidates listed beyond the matches (best first). */
const LISTED = 10;
const round = (value: number): number => Math.round(value * 1000) / 1000;

/** Builds the explanation. */
export function explainSearch(input: ExplainInput): SearchExplanation {
  const { plan, ranked, tuning, limit } = input;
  const wanted = new Set(input.watched.map((w) => w.id).filter((id): id is string => id !== undefined));
  const candidates: ExplainedCandidate[] = [];
  const listed = new Set<string>();
  let rank = 0;
  for (const candidate of ranked) {
    const kept = candidate.kept && rank < limit;
    if (kept) rank++;
    const asked = wanted.has(candidate.id) || wanted.has(candidate.matchedId);
    if (!kept && candidates.length >= limit + LISTED && !asked) continue;
    let why: string;
    if (kept) why = `kept: ranked ${rank}`;
    else if (candidate.kept) why = `cut: ranked below the ${limit} asked for`;
    else why = `cut: ${candidate.cut ?? 'below the floor'}`;
    candidates.push(entry(candidate, kept ? rank : null, why, plan, input.surfaceOf));
    listed.add(candidate.id);
    listed.add(candidate.matchedId);
  }
  for (const watched of input.watched) {
    if (watched.id !== undefined && listed.has(watched.id)) continue;
    candidates.push(unlisted(watched, plan, input.surfaceOf));
  }
  return {
    words: plan.concepts.map((c) => ({
      word: c.word,
      stem: c.stem,
      weight: round(c.weight),
      matched_as: c.expansions.map((e) => ({ term: e.term, kind: e.kind, ...(e.kind === 'exact' ? {} : { via: e.via ?? (e.kind === 'compound' ? (e.phrase ?? e.term).replace(' ', '') : input.surfaceOf(e.term)) }) })),
    })),
    floor: { min_evidence: tuning.minEvidence, support_slope: tuning.supportSlope, relative_cut: tuning.relativeCut },
    candidates,
  };
}

function entry(candidate: RankedCandidate, rank: number | null, why: string, plan: QueryPlan, surfaceOf: SurfaceOf): ExplainedCandidate {
  const fields: Partial<Record<SearchField, string[]>> = {};
  for (const match of candidate.words) {
    const word = plan.concepts[match.concept]?.word ?? match.term;
    for (const field of match.fields) (fields[field] ??= []).push(word);
  }
  const entry = candidate.skill.entry;
  return {
    slug: entry.slug,
    name: entry.name,
    status: entry.status,
    kept: rank !== null,
    ...(rank !== null ? { rank } : {}),
    score: round(candidate.final),
    reason: reasonOf(candidate, plan, surfaceOf),
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
    ...(candidate.matchedId !== candidate.id ? { replaces: candidate.matchedSkill.entry.slug } : {}),
  };
}

const EMPTY_PARTS: ExplainedCandidate['parts'] = { bm25: 0, coverage: 0, bonus: 0, trigger_share: 0, name_share: 0, surface_share: 0, evidence: 0, support: 0 };

/** A skill asked about that did not make the candidate list: say why. */
function unlisted(watched: WatchedSkill, plan: QueryPlan, surfaceOf: SurfaceOf): ExplainedCandidate {
  const { skill, figures } = watched;
  if (!skill) {
    return { slug: watched.slug, name: '', status: 'unknown', kept: false, score: 0, reason: 'matched nothing', why: 'cut: no skill has this slug', fields: {}, parts: EMPTY_PARTS };
  }
  let why: string;
  if (watched.excluded) why = `cut: ${watched.excluded}`;
  else if (!figures) why = 'cut: none of the query’s words occur in it';
  else if (skill.entry.status === 'deprecated') why = 'cut: it is deprecated and names no live successor';
  else why = 'cut: other skills scored higher';
  if (!figures) {
    return { slug: skill.entry.slug, name: skill.entry.name, status: skill.entry.status, kept: false, score: 0, reason: 'matched nothing', why, fields: {}, parts: EMPTY_PARTS };
  }
  return entry({ ...figures, matchedId: figures.id, matchedSkill: figures.skill }, null, why, plan, surfaceOf);
}
