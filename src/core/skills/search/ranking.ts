/**
 * From MiniSearch's results to the answer: which query words each candidate matched in
 * which fields (from the result's `match`), how much of the query it covers, a bonus when
 * the query contains one of its triggers or its whole name, a lower score when its name
 * says the opposite of the query, a deprecated skill standing for its successor, the
 * no-match decision (the best match must carry enough evidence of what was asked), and a
 * cut of matches far below the best.
 */
import type { MatchInfo } from 'minisearch';
import { splitWords, stemOf } from './analysis.js';
import type { StoredSkill } from './document.js';
import { phraseOf, termWeight, type MatchKind, type QueryPlan } from './plan.js';
import type { SearchField, SearchTuning } from './tuning.js';

/** A skill MiniSearch found, with org's coverage. */
export interface Candidate {
  id: string;
  skill: StoredSkill;
  /** MiniSearch's score without its count of matched terms: the sum over terms and fields of weighted BM25+. */
  bm25: number;
  /** IDF-weighted share of the query's known words the skill matches (0–1). */
  coverage: number;
  /** `bm25 × coverage^coveragePower`. */
  score: number;
  /** Indexed terms matched, with their fields (MiniSearch's `match`). */
  match: MatchInfo;
}

/** How one query word matched one skill. */
export interface WordMatch {
  /** Position of the word in the plan. */
  concept: number;
  kind: MatchKind;
  /** The indexed term matched. */
  term: string;
  /** Fields holding the term. */
  fields: SearchField[];
  /** The expansion's weight (its weight in context when the skill matches another query word too). */
  weight: number;
  phrase?: string | undefined;
  via?: string | undefined;
}

/** A candidate with everything that decided its fate. */
export interface RankedCandidate extends Candidate {
  /** The skill whose text matched (differs from `id` when a deprecated skill stands for its successor). */
  matchedId: string;
  matchedSkill: StoredSkill;
  /** Final score after the bonuses and the contrast penalty. */
  final: number;
  words: WordMatch[];
  /** IDF-weighted evidence of the matched words (word weight × match credit × field credit). */
  evidence: number;
  /** `evidence` over the weight of the query's heaviest words. */
  support: number;
  trigger?: { text: string; share: number } | undefined;
  /** IDF-weighted share of the name's content words the query reaches. */
  nameShare: number;
  /** Share of the query's words found as written in the name, tags or triggers. */
  surfaceShare: number;
  bonus: number;
  /** The stem in its name that goes against the query, when its score was lowered for it. */
  contrast: string | undefined;
  kept: boolean;
  /** Why it was cut, or undefined when kept. */
  cut?: string | undefined;
}

/** What ranking reads of the index beyond the candidates. */
export interface RankSource {
  documentCount: number;
  documentFrequency(term: string): number;
  /** The live, complete, visible skill a deprecated one names as its successor. */
  successorOf(skill: StoredSkill): { id: string; skill: StoredSkill } | undefined;
}

/** The coverage of a result: the weighed share of the query's known words its matched terms reach, and how many they are. */
export function coverageOf(plan: QueryPlan, match: MatchInfo): { share: number; words: number } {
  let known = 0;
  for (const concept of plan.concepts) if (concept.known) known += concept.weight;
  if (known === 0) return { share: 0, words: 0 };
  let covered = 0;
  let words = 0;
  // A bit per query word reached (at most 32 words are planned, see `maxQueryWords`).
  let reached = 0;
  for (const term in match) {
    for (const c of plan.terms.get(term)?.concepts ?? []) {
      const bit = 1 << c;
      if (reached & bit) continue;
      reached |= bit;
      words++;
      covered += plan.concepts[c]?.weight ?? 0;
    }
  }
  return { share: covered / known, words };
}

/**
 * For each query word, its most telling reading found in the candidate's match: the one
 * that proves the most (by how it matched, how strongly, and in which field), so the word
 * itself in the name wins over a relative in the body.
 */
export function wordMatches(plan: QueryPlan, match: MatchInfo, tuning: SearchTuning): WordMatch[] {
  const out: WordMatch[] = [];
  plan.concepts.forEach((concept, c) => {
    let chosen: WordMatch | undefined;
    let chosenProof = -1;
    for (const expansion of concept.expansions) {
      const fields = match[expansion.term] as SearchField[] | undefined;
      if (!fields) continue;
      const candidate: WordMatch = { concept: c, kind: expansion.kind, term: expansion.term, fields: [...new Set(fields)], weight: expansion.weight, phrase: expansion.phrase, via: expansion.via };
      const proof = proofOf(candidate, tuning);
      if (proof < chosenProof || (proof === chosenProof && chosen && candidate.fields.length <= chosen.fields.length)) continue;
      chosen = candidate;
      chosenProof = proof;
    }
    if (chosen) out.push(chosen);
  });
  // A dictionary word read as a typo is taken at its full weight by a skill that matches another word too.
  if (out.length > 1) {
    for (const match of out) {
      const context = plan.concepts[match.concept]?.expansions.find((e) => e.term === match.term)?.inContext;
      if (context !== undefined) match.weight = context;
    }
  }
  return out;
}

/** How much one word match proves: match credit × strength × the credit of its most telling field (0–1). */
function proofOf(match: WordMatch, tuning: SearchTuning): number {
  const field = match.fields.reduce((best, f) => Math.max(best, tuning.fieldCredit[f]), 0);
  const strength = Math.min(1, match.weight / (nominal(match.kind, tuning) || 1));
  return tuning.kindCredit[match.kind] * strength * field;
}

/** The full weight an expansion of each kind has (its strength is its weight over this). */
function nominal(kind: MatchKind, tuning: SearchTuning): number {
  switch (kind) {
    case 'variant':
      return tuning.variantWeight;
    case 'prefix':
      return tuning.prefixWeight;
    case 'fuzzy':
      return tuning.fuzzyWeight;
    case 'synonym':
      return tuning.synonymWeight;
    default:
      return 1;
  }
}

/** Evidence of a set of word matches: each word's weight × what its match proves. */
function evidenceOf(words: WordMatch[], plan: QueryPlan, tuning: SearchTuning): number {
  let sum = 0;
  for (const match of words) sum += (plan.concepts[match.concept]?.weight ?? 0) * proofOf(match, tuning);
  return sum;
}

/** What a skill's labels say, analysed once per stored version. */
interface Labels {
  /** The words as written of its name, tags and triggers. */
  words: Set<string>;
  /** The distinct stems of its name, in order. */
  name: string[];
  /** The distinct stems of its summary. */
  summary: string[];
  triggers: { text: string; stems: string[]; phrase: string; words: number }[];
}

const labelMemo = new WeakMap<StoredSkill, Labels>();
const distinctStems = (text: string): string[] => [...new Set(splitWords(text).map(stemOf).filter((s): s is string => s !== null))];

function labelsOf(skill: StoredSkill): Labels {
  let labels = labelMemo.get(skill);
  if (!labels) {
    const triggers = skill.triggers ?? [];
    labels = {
      words: new Set(splitWords([skill.entry.name, ...skill.entry.tags, ...triggers].join(' '))),
      name: distinctStems(skill.entry.name),
      summary: distinctStems(skill.entry.summary),
      triggers: triggers.map((text) => ({ text, stems: distinctStems(text), phrase: phraseOf(text), words: splitWords(text).length })),
    };
    labelMemo.set(skill, labels);
  }
  return labels;
}

/** IDF-weighted share of `stems` that the query reaches. */
function shareInQuery(stems: readonly string[], plan: QueryPlan, weightOf: (stem: string) => number): number {
  let total = 0;
  let found = 0;
  for (const stem of stems) {
    const weight = weightOf(stem);
    total += weight;
    if (plan.stems.has(stem)) found += weight;
  }
  return total > 0 ? found / total : 0;
}

/** IDF-weighted share of the query's known words written exactly so in the name, tags or triggers. */
function surfaceShareOf(plan: QueryPlan, words: ReadonlySet<string>): number {
  let total = 0;
  let found = 0;
  for (const concept of plan.concepts) {
    if (!concept.known) continue;
    total += concept.weight;
    if (words.has(concept.word)) found += concept.weight;
  }
  return total > 0 ? found / total : 0;
}

/** Re-scores the best candidates, substitutes successors, applies the no-match decision and the relative cut. */
export function rankCandidates(source: RankSource, plan: QueryPlan, candidates: Candidate[], tuning: SearchTuning): RankedCandidate[] {
  const n = Math.max(source.documentCount, tuning.minCorpusSize);
  const top = candidates[0]?.score ?? 0;
  const weights = new Map<string, number>();
  const weightOf = (stem: string): number => {
    let weight = weights.get(stem);
    if (weight === undefined) {
      weight = termWeight(source.documentFrequency(stem), n);
      weights.set(stem, weight);
    }
    return weight;
  };
  const ranked = candidates.map((candidate) => describe(plan, candidate, tuning, top, weightOf));
  ranked.sort((a, b) => b.final - a.final || (a.id < b.id ? -1 : 1));

  // A deprecated skill stands for its successor, at its own rank; without one it goes.
  const taken = new Set<string>();
  const out: RankedCandidate[] = [];
  for (const candidate of ranked) {
    let entry = candidate;
    if (candidate.skill.entry.status === 'deprecated') {
      const successor = source.successorOf(candidate.skill);
      if (!successor) {
        out.push({ ...candidate, kept: false, cut: 'deprecated, and no live successor is named in it' });
        continue;
      }
      entry = { ...candidate, id: successor.id, skill: successor.skill };
    }
    if (taken.has(entry.id)) continue;
    taken.add(entry.id);
    out.push(entry);
  }
  decide(out.filter((c) => c.kept), plan.concepts.length, tuning);
  return out;
}

/** The fields that say what a skill is for. */
const LABELS: ReadonlySet<SearchField> = new Set(['name', 'tags', 'triggers']);

/** The no-match decision (the query has `concepts` content words), then the relative cut. */
function decide(live: RankedCandidate[], concepts: number, tuning: SearchTuning): void {
  const best = live[0];
  if (!best) return;
  // A query its best match explains whole, in its name, tags or triggers ("hiring", "payrol"), needs less.
  const labelled = best.words.length === concepts && best.words.every((word) => word.fields.some((field) => LABELS.has(field)));
  const needed = labelled ? Math.min(tuning.labelEvidence, tuning.minEvidence) : tuning.minEvidence + tuning.supportSlope * (1 - best.support);
  if (best.evidence < needed) {
    const share = Math.round(best.support * 100);
    for (const candidate of live) {
      candidate.kept = false;
      candidate.cut = `no answer: the best match carries ${share} % of the query with evidence ${best.evidence.toFixed(2)}, under the ${needed.toFixed(2)} needed`;
    }
    return;
  }
  for (const candidate of live.slice(1)) {
    if (candidate.final < best.final * tuning.relativeCut) {
      candidate.kept = false;
      candidate.cut = `scores under ${Math.round(tuning.relativeCut * 100)} % of the best match`;
    }
  }
}

/** A candidate with its word matches, evidence, shares, bonus and contrast. */
export function describe(plan: QueryPlan, candidate: Candidate, tuning: SearchTuning, top: number, weightOf: (stem: string) => number): RankedCandidate {
  const words = wordMatches(plan, candidate.match, tuning);
  const labels = labelsOf(candidate.skill);
  const evidence = evidenceOf(words, plan, tuning);
  let trigger: RankedCandidate['trigger'];
  let whole = 0;
  for (const { text, stems, phrase, words: length } of labels.triggers) {
    const share = shareInQuery(stems, plan, weightOf);
    if (!trigger || share > trigger.share) trigger = { text, share };
    // A trigger of two words or more that the query says whole, word for word, and that is a good part of
    // what it says: the author's own "use when" (a long message that quotes it in passing is not that request).
    if (length >= 2 && length >= tuning.wholeTriggerShare * plan.wordCount && plan.phrase.includes(phrase)) whole = 1;
  }
  const nameShare = shareInQuery(labels.name, plan, weightOf);
  const summaryShare = tuning.summaryBonus > 0 ? shareInQuery(labels.summary, plan, weightOf) : 0;
  const surfaceShare = surfaceShareOf(plan, labels.words);
  const first = labels.name[0];
  const action = first !== undefined && plan.stems.has(first) ? 1 : 0;
  const triggerShare = trigger?.share ?? 0;
  let contrast: string | undefined;
  let penalty = 1;
  for (const stem of labels.name) {
    const opposite = plan.contrasts.get(stem);
    if (opposite === undefined || (!opposite.negated && labels.name.includes(opposite.of))) continue;
    contrast = stem;
    // A name the query negates ("did not renew") is lowered; one that is the opposite of a query word ("fire" for "hire") more.
    penalty = Math.min(penalty, opposite.negated ? tuning.contrastPenalty : tuning.oppositePenalty);
  }
  const bonus =
    top *
    (tuning.triggerBonus * triggerShare * triggerShare +
      tuning.nameBonus * nameShare * nameShare +
      tuning.summaryBonus * summaryShare * summaryShare +
      tuning.surfaceBonus * surfaceShare * surfaceShare +
      tuning.actionBonus * action +
      tuning.wholeTriggerBonus * whole);
  return {
    ...candidate,
    matchedId: candidate.id,
    matchedSkill: candidate.skill,
    final: (candidate.score + bonus) * penalty,
    words,
    evidence,
    support: plan.totalWeight > 0 ? Math.min(1, evidence / plan.totalWeight) : 0,
    trigger,
    nameShare,
    surfaceShare,
    bonus,
    contrast,
    kept: true,
    cut: undefined,
  };
}
