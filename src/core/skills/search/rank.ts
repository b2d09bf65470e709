/**
 * From scored candidates to the answer: which query words each candidate matched in
 * which fields, a bonus when the query contains one of its triggers or its whole name,
 * a deprecated skill replaced by its successor, the no-match decision (the best match
 * must carry enough of the query's weight, calibrated on the evaluation's dev split),
 * and a cut of matches far below the best.
 */
import type { Hidden } from '../visibility.js';
import { STATUS } from './docs.js';
import { baseEntriesOf, baseTerm, fieldOf } from './postings.js';
import { termWeight, type MatchKind, type QueryPlan } from './query.js';
import type { Candidate, ScoreSource } from './scorer.js';
import { SEARCH_FIELDS, type SearchField, type SearchTuning } from './tuning.js';

/** How one query word matched one skill. */
export interface WordMatch {
  /** Position of the word in the plan. */
  concept: number;
  kind: MatchKind;
  /** The stem matched. */
  term: string;
  /** The indexed word the match went through (prefix, typo, synonym). */
  via?: string | undefined;
  /** Fields holding the term, in field order. */
  fields: SearchField[];
  /** Multiplier of the match kind (1 for the word itself). */
  weight: number;
  /** The multiplier when the skill matches another query word too (a dictionary word read as a typo). */
  inContext?: number | undefined;
  /** For a compound: the query's two words as typed. */
  phrase?: string | undefined;
}

/** A candidate with everything that decided its fate. */
export interface RankedCandidate extends Candidate {
  /** The document whose text matched (differs from `doc` when a deprecated skill stands for its successor). */
  matchedDoc: number;
  /** Final score after the trigger and name bonuses. */
  final: number;
  words: WordMatch[];
  /** IDF-weighted evidence of the matched words (word weight × kind × field credit). */
  evidence: number;
  /** `evidence` over the weight of the query's heaviest words. */
  support: number;
  trigger?: { text: string; share: number } | undefined;
  /** Share of the name's content words the query contains (IDF-weighted). */
  nameShare: number;
  /** Share of the query's words found as written (not only as stems) in the name, tags or triggers. */
  surfaceShare: number;
  bonus: number;
  /** The stem in its name of opposite meaning to a query word, when its score was lowered for it. */
  contrast: string | undefined;
  kept: boolean;
  /** Why it was cut, or undefined when kept. */
  cut?: string | undefined;
}


/** Where each expansion of each query word occurs in document `doc` (`termAt`: base positions, cached per search). */
export function wordMatches(source: ScoreSource, plan: QueryPlan, doc: number, termAt: (term: string) => number = (term) => baseTerm(source.base, term)): WordMatch[] {
  const out: WordMatch[] = [];
  for (let c = 0; c < plan.concepts.length; c++) {
    const concept = plan.concepts[c] as QueryPlan['concepts'][number];
    let chosen: WordMatch | undefined;
    let chosenFields = 0;
    for (const expansion of concept.expansions) {
      // A bit per field holding the term.
      let fields = 0;
      const t = termAt(expansion.term);
      if (t >= 0) {
        const [start, end] = baseEntriesOf(source.base, t, doc);
        for (let k = start; k < end; k++) fields |= 1 << fieldOf(source.base.fieldTf[k] as number);
      }
      const r = source.delta.termIndex(expansion.term);
      if (r >= 0) {
        const rows = source.delta.rows();
        const [start, end] = baseEntriesOf(rows, r, doc);
        for (let k = start; k < end; k++) fields |= 1 << fieldOf(rows.fieldTf[k] as number);
      }
      if (fields === 0) continue;
      const count = bitCount(fields);
      if (chosen && !(expansion.weight > chosen.weight || (expansion.weight === chosen.weight && count > chosenFields))) continue;
      chosenFields = count;
      chosen = {
        concept: c,
        kind: expansion.kind,
        term: expansion.term,
        fields: SEARCH_FIELDS.filter((_, f) => (fields & (1 << f)) !== 0),
        weight: expansion.weight,
        via: expansion.via,
        inContext: expansion.inContext,
        phrase: expansion.phrase,
      };
    }
    if (chosen) out.push(chosen);
  }
  return out;
}

function bitCount(bits: number): number {
  let count = 0;
  for (let b = bits; b !== 0; b &= b - 1) count++;
  return count;
}

/** Evidence of a set of word matches: word weight × match kind × the credit of its most telling field. */
function evidenceOf(words: WordMatch[], plan: QueryPlan, tuning: SearchTuning): number {
  let sum = 0;
  for (const match of words) {
    const credit = match.fields.reduce((best, field) => Math.max(best, tuning.fieldCredit[field]), 0);
    const kind = match.inContext !== undefined && words.length > 1 ? match.inContext : match.weight;
    sum += (plan.concepts[match.concept]?.weight ?? 0) * kind * credit;
  }
  return sum;
}

/** 1 when the query reaches the first content word of the name (a playbook's action: pay, chase, grant, revoke), else 0. */
function actionOf(name: readonly string[], plan: QueryPlan): number {
  const first = name[0];
  return first !== undefined && plan.stems.has(first) ? 1 : 0;
}

/** IDF-weighted share of `text`'s content words that the query reaches. */
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

/**
 * IDF-weighted share of the query's words that occur exactly as typed in the name, tags
 * or triggers: stems conflate "collections" with "collect", the words as written do not.
 */
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

/** The live, complete successor of a deprecated document visible to the structure, if any. */
function successorOf(source: ScoreSource, doc: number, structureId: string | undefined, hidden: Hidden | undefined): number | undefined {
  for (const slug of source.docs.successors.get(doc) ?? []) {
    const id = source.docs.resolve(slug, structureId, hidden);
    if (id !== undefined && source.docs.status[id] === STATUS.complete) return id;
  }
  return undefined;
}

/** Re-scores, substitutes successors, applies the no-match decision and the relative cut. */
export function rankCandidates(
  source: ScoreSource,
  plan: QueryPlan,
  candidates: Candidate[],
  tuning: SearchTuning,
  structureId: string | undefined,
  hidden?: Hidden,
): RankedCandidate[] {
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
  const positions = new Map<string, number>();
  const termAt = (term: string): number => {
    let t = positions.get(term);
    if (t === undefined) {
      t = baseTerm(source.base, term);
      positions.set(term, t);
    }
    return t;
  };
  const ranked = candidates.map((candidate) => describe(source, plan, candidate, tuning, top, weightOf, termAt));
  ranked.sort((a, b) => b.final - a.final || a.doc - b.doc);

  // A deprecated skill stands for its successor, at its own rank; without one it goes.
  const byDoc = new Map<number, RankedCandidate>();
  const out: RankedCandidate[] = [];
  for (const candidate of ranked) {
    let entry = candidate;
    if (source.docs.status[candidate.doc] === STATUS.deprecated) {
      const successor = successorOf(source, candidate.doc, structureId, hidden);
      if (successor === undefined) {
        out.push({ ...candidate, kept: false, cut: 'deprecated, and no live successor is named in it' });
        continue;
      }
      entry = { ...candidate, doc: successor };
    }
    const held = byDoc.get(entry.doc);
    if (held) continue;
    byDoc.set(entry.doc, entry);
    out.push(entry);
  }

  const live = out.filter((c) => c.kept);
  const best = live[0];
  const needed = best ? tuning.minEvidence + tuning.supportSlope * (1 - best.support) : 0;
  if (best && best.evidence < needed) {
    const share = Math.round(best.support * 100);
    for (const candidate of live) {
      candidate.kept = false;
      candidate.cut = `no answer: the best match carries ${share} % of the query with evidence ${best.evidence.toFixed(2)}, under the ${needed.toFixed(2)} needed`;
    }
  } else if (best) {
    for (const candidate of live.slice(1)) {
      if (candidate.final < best.final * tuning.relativeCut) {
        candidate.kept = false;
        candidate.cut = `scores under ${Math.round(tuning.relativeCut * 100)} % of the best match`;
      }
    }
  }
  return out;
}

function describe(
  source: ScoreSource,
  plan: QueryPlan,
  candidate: Candidate,
  tuning: SearchTuning,
  top: number,
  weightOf: (stem: string) => number,
  termAt: (term: string) => number,
): RankedCandidate {
  const words = wordMatches(source, plan, candidate.doc, termAt);
  const labels = source.docs.labelInfo(candidate.doc);
  const evidence = evidenceOf(words, plan, tuning);
  let trigger: RankedCandidate['trigger'];
  for (const { text, stems } of labels.triggers) {
    const share = shareInQuery(stems, plan, weightOf);
    if (!trigger || share > trigger.share) trigger = { text, share };
  }
  const nameShare = shareInQuery(labels.name, plan, weightOf);
  const surfaceShare = surfaceShareOf(plan, labels.words);
  const action = actionOf(labels.name, plan);
  const triggerShare = trigger?.share ?? 0;
  let contrast: string | undefined;
  for (const stem of labels.name) {
    const opposite = plan.contrasts.get(stem);
    if (opposite !== undefined && (opposite.negated || !labels.name.includes(opposite.of))) contrast = stem;
  }
  const bonus =
    top *
    (tuning.triggerBonus * triggerShare * triggerShare +
      tuning.nameBonus * nameShare * nameShare +
      tuning.surfaceBonus * surfaceShare * surfaceShare +
      tuning.actionBonus * action);
  return {
    doc: candidate.doc,
    bm25: candidate.bm25,
    coverage: candidate.coverage,
    score: candidate.score,
    matchedDoc: candidate.doc,
    final: (candidate.score + bonus) * (contrast === undefined ? 1 : tuning.contrastPenalty),
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
