/**
 * `npm run eval:search`: the search evaluation of `test/fixtures/search-eval/`, per kind
 * of query and split, for org and for raw MiniSearch (defaults, and the boosted floor).
 *
 *   npm run eval:search                       # both splits, side by side
 *   npm run eval:search -- --misses           # also list the dev split's misses
 *   npm run eval:search -- --tuning '{"coveragePower":2}'   # try knobs (dev first!)
 *
 * Tune on `dev` only. The `test` split is reported, never inspected query by query: that
 * is what keeps its figures honest. Misses are listed for the dev split only.
 */
import { fileURLToPath } from 'node:url';
import { search, type Skill } from '../src/core/skills/index.js';
import { evaluate, KINDS, loadEvalSet, rawRanker, RAW_CONFIGS, type Figures, type Ranker } from '../test/helpers/search-eval.js';

/** org's ranker over the evaluation skills, as the store builds it. */
export function orgRanker(skills: Skill[], tuning: Partial<search.SearchTuning> = {}): Ranker {
  const index = search.createSkillSearchIndex({ tuning, synonyms: () => search.createWordNet() });
  for (const skill of skills) index.set(search.toSearchDocument(skill));
  index.compact(true);
  return (query) => index.search(query, { limit: 5 }).map((m) => m.slug);
}

type Engines = Record<'org' | 'raw-default' | 'raw-boosted', Ranker>;

/** The figures of every engine on every split. */
export async function runEval(tuning: Partial<search.SearchTuning> = {}) {
  const set = await loadEvalSet();
  const engines: Engines = {
    org: orgRanker(set.skills, tuning),
    'raw-default': rawRanker(set.skills, RAW_CONFIGS.default),
    'raw-boosted': rawRanker(set.skills, RAW_CONFIGS.boosted),
  };
  const splits = { dev: set.dev, test: set.test };
  const results = Object.fromEntries(
    Object.entries(splits).map(([split, queries]) => [
      split,
      Object.fromEntries(Object.entries(engines).map(([name, ranker]) => [name, evaluate(queries, ranker)])),
    ]),
  ) as Record<'dev' | 'test', Record<keyof Engines, ReturnType<typeof evaluate>>>;
  return { set, results };
}

function row(kind: string, engine: string, f: Figures): string {
  const answer = f.answerable ? `${f.mrr.toFixed(3)}  ${f.recall.toFixed(3)}  ${f.hit1.toFixed(3)}  ${f.ndcg.toFixed(3)}` : '    -      -      -      -  ';
  const empty = f.unanswerable ? f.empty.toFixed(3) : '  -  ';
  return `${kind.padEnd(11)} ${engine.padEnd(12)} ${String(f.answerable).padStart(4)}  ${answer}  ${String(f.unanswerable).padStart(4)}  ${empty}`;
}

async function main(args: string[]): Promise<void> {
  const tuningArg = args.indexOf('--tuning');
  const tuning = tuningArg >= 0 ? (JSON.parse(args[tuningArg + 1] ?? '{}') as Partial<search.SearchTuning>) : {};
  const { set, results } = await runEval(tuning);
  console.log(`search evaluation: ${set.skills.length} skills, ${set.dev.length} dev and ${set.test.length} test queries`);
  for (const split of ['dev', 'test'] as const) {
    console.log(`\n== ${split}${split === 'test' ? ' (reported only, never tuned on)' : ' (tuned on)'}`);
    console.log('kind        engine       ans.   MRR@5  R@5    Hit@1  nDCG@5  none  empty');
    for (const kind of [...KINDS, 'all']) {
      for (const engine of ['org', 'raw-default', 'raw-boosted'] as const) {
        const report = results[split][engine];
        const figures = kind === 'all' ? report.all : report.byKind[kind];
        if (figures) console.log(row(kind, engine, figures));
      }
    }
  }
  if (args.includes('--misses')) {
    console.log('\n== dev misses of org (first result not an answer, or not empty when it should be)');
    for (const miss of results.dev.org.misses) {
      console.log(`[${miss.kind}] ${miss.query}\n    expected ${miss.expected.join(', ') || '(nothing)'}; got ${miss.got.join(', ') || '(nothing)'}`);
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main(process.argv.slice(2));
}
