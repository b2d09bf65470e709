/**
 * `npm run eval:search`: the search evaluation, per kind of query and split, for org and
 * for raw MiniSearch (its defaults; boosted with prefix, fuzzy and field boosts; the same
 * with org's stop words), on the library's own set (`test/fixtures/search-eval/`) and, when
 * a local copy of the public benchmark is given, on the external set derived from it
 * (`test/helpers/search-eval-external.ts`; nothing of it is committed).
 *
 *   npm run eval:search                                  # own splits, side by side
 *   ORG_EVAL_EXTERNAL=~/src/gorilla npm run eval:search  # and the external splits
 *   npm run eval:search -- --external ~/src/gorilla      # the same
 *   npm run eval:search -- --misses                      # also list the dev split's misses
 *   npm run eval:search -- --tuning '{"coveragePower":2}' # try knobs (dev first!)
 *
 * Tune on the `dev` splits only. The `test` splits are reported, never inspected query by
 * query: that is what keeps their figures honest. Misses are listed for `dev` only.
 */
import { fileURLToPath } from 'node:url';
import { search, type Skill } from '../src/core/skills/index.js';
import { evaluate, KINDS, loadEvalSet, rawRanker, RAW_CONFIGS, type EvalQuery, type Figures, type Ranker } from '../test/helpers/search-eval.js';
import { loadExternalSet, type ExternalSet } from '../test/helpers/search-eval-external.js';

/** The engines compared, org first. */
export const ENGINES = ['org', 'raw-default', 'raw-boosted', 'raw-boosted-stop'] as const;
type Engine = (typeof ENGINES)[number];

/** org's search over `skills` as the store builds it (an index of their search documents). */
export function orgIndex(skills: Skill[], tuning: Partial<search.SearchTuning> = {}): search.SkillIndex {
  const index = search.createSkillIndex({ tuning, synonyms: () => search.createWordNet() });
  for (const skill of skills) index.set(search.toSearchDocument(skill));
  return index;
}

/** Every engine's ranker over `skills`. */
export function rankers(skills: Skill[], tuning: Partial<search.SearchTuning> = {}): Record<Engine, Ranker> {
  const index = orgIndex(skills, tuning);
  return {
    org: (query) => index.search(query, { limit: 5 }).map((m) => m.slug),
    'raw-default': rawRanker(skills, RAW_CONFIGS.default),
    'raw-boosted': rawRanker(skills, RAW_CONFIGS.boosted),
    'raw-boosted-stop': rawRanker(skills, RAW_CONFIGS.boosted, { stopWords: true }),
  };
}

type Report = ReturnType<typeof evaluate>;

/** The figures of every engine on the splits of one set. */
export function runSet(skills: Skill[], splits: Record<string, EvalQuery[]>, tuning: Partial<search.SearchTuning> = {}): Record<string, Record<Engine, Report>> {
  const ranked = rankers(skills, tuning);
  return Object.fromEntries(
    Object.entries(splits).map(([split, queries]) => [split, Object.fromEntries(ENGINES.map((engine) => [engine, evaluate(queries, ranked[engine])])) as Record<Engine, Report>]),
  );
}

/** The path of the local copy of the external benchmark (`--external <dir>` or `ORG_EVAL_EXTERNAL`), if given. */
export function externalPath(args: string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const at = args.indexOf('--external');
  return at >= 0 ? args[at + 1] : env.ORG_EVAL_EXTERNAL || undefined;
}

function row(kind: string, engine: string, f: Figures): string {
  const answer = f.answerable ? `${f.mrr.toFixed(3)}  ${f.recall.toFixed(3)}  ${f.hit1.toFixed(3)}  ${f.ndcg.toFixed(3)}  ${f.answerableEmpty.toFixed(3)}` : '    -      -      -      -       -  ';
  const empty = f.unanswerable ? f.empty.toFixed(3) : '  -  ';
  return `${kind.padEnd(11)} ${engine.padEnd(16)} ${String(f.answerable).padStart(4)}  ${answer}  ${String(f.unanswerable).padStart(4)}  ${empty}`;
}

function print(title: string, report: Record<Engine, Report>, kinds: readonly string[]): void {
  console.log(`\n== ${title}`);
  console.log('kind        engine           ans.   MRR@5  R@5    Hit@1  nDCG@5 a.empty  none  empty');
  for (const kind of [...kinds, 'all']) {
    for (const engine of ENGINES) {
      const figures = kind === 'all' ? report[engine].all : report[engine].byKind[kind];
      if (figures) console.log(row(kind, engine, figures));
    }
  }
}

/** The goals of the issue, checked on the reported figures: one line each, `ok` or `MISSED`. */
function goals(own: Record<string, Record<Engine, Report>>, external: Record<string, Record<Engine, Report>> | undefined): string[] {
  const out: string[] = [];
  const test = own.test as Record<Engine, Report>;
  for (const floor of ['raw-boosted', 'raw-boosted-stop'] as const) {
    const below = KINDS.filter((kind) => {
      const ours = test.org.byKind[kind];
      const theirs = test[floor].byKind[kind];
      return ours && theirs && ours.answerable > 0 && ours.mrr < theirs.mrr;
    });
    out.push(`${below.length === 0 ? 'ok    ' : 'MISSED'} own test: MRR@5 ≥ ${floor} on every kind${below.length ? ` (below on ${below.join(', ')})` : ''}`);
  }
  const none = test.org.byKind.none?.empty ?? 0;
  out.push(`${none >= 0.75 ? 'ok    ' : 'MISSED'} own test: chit-chat empty ${none.toFixed(3)} ≥ 0.75`);
  for (const [split, report] of Object.entries(external ?? {})) {
    const margin = report.org.all.mrr - report['raw-boosted-stop'].all.mrr;
    out.push(`${margin >= 0.05 ? 'ok    ' : 'MISSED'} external ${split}: MRR@5 ${report.org.all.mrr.toFixed(3)} ≥ raw-boosted-stop ${report['raw-boosted-stop'].all.mrr.toFixed(3)} + 0.05 (margin ${margin.toFixed(3)})`);
    const empty = report.org.all.answerableEmpty;
    out.push(`${empty <= 0.05 ? 'ok    ' : 'MISSED'} external ${split}: answerable requests empty ${empty.toFixed(3)} ≤ 0.05`);
  }
  return out;
}

async function main(args: string[]): Promise<void> {
  const tuningArg = args.indexOf('--tuning');
  const tuning = tuningArg >= 0 ? (JSON.parse(args[tuningArg + 1] ?? '{}') as Partial<search.SearchTuning>) : {};
  const set = await loadEvalSet();
  const own = runSet(set.skills, { dev: set.dev, test: set.test }, tuning);
  console.log(`own set: ${set.skills.length} skills, ${set.dev.length} dev and ${set.test.length} test queries`);
  print('own dev (tuned on)', own.dev as Record<Engine, Report>, KINDS);
  print('own test (reported only, never tuned on)', own.test as Record<Engine, Report>, KINDS);
  const path = externalPath(args);
  let external: Record<string, Record<Engine, Report>> | undefined;
  let ext: ExternalSet | undefined;
  if (path) {
    ext = await loadExternalSet(path);
    console.log(`\nexternal set (${ext.name}): ${ext.skills.length} skills, ${ext.dev.length} dev and ${ext.test.length} test queries`);
    external = runSet(ext.skills, { dev: ext.dev, test: ext.test }, tuning);
    print('external dev (calibrated on)', external.dev as Record<Engine, Report>, []);
    print('external test (reported only)', external.test as Record<Engine, Report>, []);
  } else {
    console.log('\nexternal set: not given (ORG_EVAL_EXTERNAL or --external <dir>, a local copy of ShishirPatil/gorilla; see bench/README.md)');
  }
  console.log('\n== goals');
  for (const line of goals(own, external)) console.log(line);
  if (args.includes('--misses')) {
    console.log('\n== own dev misses of org (first result not an answer, or not empty when it should be)');
    for (const miss of (own.dev as Record<Engine, Report>).org.misses) {
      console.log(`[${miss.kind}] ${miss.query}\n    expected ${miss.expected.join(', ') || '(nothing)'}; got ${miss.got.join(', ') || '(nothing)'}`);
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main(process.argv.slice(2));
}
