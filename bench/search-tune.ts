/**
 * Calibrates the search knobs on the `dev` splits, never on `test`: coordinate search
 * over a few values per knob, from the defaults (or a given start). It prints each gain
 * and the best tuning found with its dev figures; copying it into `tuning.ts` is a
 * deliberate step, followed by `npm run eval:search` to see what it does on `test`.
 *
 *   npx tsx bench/search-tune.ts [--rounds 2] [--start '{"coveragePower":2}'] [--external <dir>]
 *
 * The objective is the mean of the own dev split's MRR@5 and, with the external split,
 * its dev MRR@5, less a penalty for missing either constraint: at least 80 % of the own
 * dev no-answer queries come back empty (the goal on held-out queries is 75 %), at
 * most 4 % of the external dev answerable requests do (the goal is 5 %), and no kind of
 * the own dev split falls below raw MiniSearch boosted with the same stop words.
 */
import { search } from '../src/core/skills/index.js';
import { evaluate, KINDS, loadEvalSet, rawRanker, RAW_CONFIGS } from '../test/helpers/search-eval.js';
import { loadExternalSet } from '../test/helpers/search-eval-external.js';
import { externalPath, orgIndex } from './search-eval.js';

type Tuning = Record<string, unknown>;

/** The knobs searched, as paths into the tuning, and the factors tried around the current value. */
const KNOBS = [
  'boosts.name', 'boosts.tags', 'boosts.triggers', 'boosts.summary', 'boosts.body', 'bm25.k', 'bm25.b', 'coveragePower', 'matchedWordsPower',
  'variantWeight', 'prefixWeight', 'fuzzyWeight', 'synonymWeight', 'nameBonus', 'summaryBonus', 'surfaceBonus', 'actionBonus', 'triggerBonus',
  'minEvidence', 'supportSlope', 'unknownWordWeight', 'unknownWeight',
];
const FACTORS = [0.5, 0.75, 1.33, 2];

function valueOf(tuning: Tuning, path: string): number {
  const [head, tail] = path.split('.') as [string, string | undefined];
  const defaults = search.DEFAULT_TUNING as unknown as Record<string, Record<string, number> | number>;
  const own = tail ? (tuning[head] as Record<string, number> | undefined)?.[tail] : (tuning[head] as number | undefined);
  return own ?? (tail ? (defaults[head] as Record<string, number>)[tail] ?? 0 : (defaults[head] as number));
}

function withValue(tuning: Tuning, path: string, value: number): Tuning {
  const [head, tail] = path.split('.') as [string, string | undefined];
  return tail ? { ...tuning, [head]: { ...(tuning[head] as object | undefined), [tail]: value } } : { ...tuning, [head]: value };
}

async function main(args: string[]): Promise<void> {
  const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const rounds = Number(option('--rounds') ?? 2);
  let current = JSON.parse(option('--start') ?? '{}') as Tuning;
  const own = await loadEvalSet();
  const path = externalPath(args);
  const ext = path ? await loadExternalSet(path) : undefined;
  const ownIndex = orgIndex(own.skills);
  const extIndex = ext ? orgIndex(ext.skills) : undefined;
  // The bar on every kind of query: raw MiniSearch boosted with the same stop words, on dev.
  const raw = evaluate(own.dev, rawRanker(own.skills, RAW_CONFIGS.boosted, { stopWords: true }));
  const measure = (tuning: Tuning) => {
    const a = ownIndex.withTuning(tuning as Partial<search.SearchTuning>);
    const mine = evaluate(own.dev, (q) => a.search(q, { limit: 5 }).map((m) => m.slug));
    const b = extIndex?.withTuning(tuning as Partial<search.SearchTuning>);
    const theirs = ext && b ? evaluate(ext.dev, (q) => b.search(q, { limit: 5 }).map((m) => m.slug)) : undefined;
    const shortfall = Math.max(0, 0.8 - (mine.byKind.none?.empty ?? 1)) + Math.max(0, (theirs?.all.answerableEmpty ?? 0) - 0.04);
    let below = 0;
    for (const kind of KINDS) below += Math.max(0, (raw.byKind[kind]?.mrr ?? 0) - (mine.byKind[kind]?.mrr ?? 0));
    const objective = (theirs ? (mine.all.mrr + theirs.all.mrr) / 2 : mine.all.mrr) - 2 * shortfall - below;
    return { objective, own: mine.all, none: mine.byKind.none?.empty, external: theirs?.all };
  };
  let best = measure(current);
  console.log('start', JSON.stringify(current), JSON.stringify(best));
  for (let round = 0; round < rounds; round++) {
    for (const knob of KNOBS) {
      const value = valueOf(current, knob);
      for (const factor of value === 0 ? [0.1, 0.3] : FACTORS) {
        const candidate = withValue(current, knob, Math.round(value * factor * 1000) / 1000);
        const figures = measure(candidate);
        if (figures.objective <= best.objective + 0.001) continue;
        best = figures;
        current = candidate;
        console.log(`better ${knob} ${valueOf(current, knob)}`, JSON.stringify(best));
      }
    }
    console.log(`round ${round + 1}:`, JSON.stringify(current));
  }
  console.log('\nbest tuning (dev only):', JSON.stringify(current), JSON.stringify(best));
}

await main(process.argv.slice(2));
