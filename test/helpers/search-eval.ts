/**
 * The offline evaluation of skill search (`test/fixtures/search-eval/`): the playbooks,
 * the graded queries of the `dev` split (tuned on) and the `test` split (only reported),
 * the metrics per kind of query, and the raw MiniSearch baselines org is compared with:
 * MiniSearch's defaults, the "floor" (prefix, fuzzy 0.2, boosts name 3, tags 2, summary
 * 2), and the same floor with org's stop words, none of which org may fall below on any
 * kind of query.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MiniSearch, { type SearchOptions } from 'minisearch';
import { parseSkillText, search, type Skill } from '../../src/core/skills/index.js';

/** The fixture folder. */
export const EVAL_DIR = join(import.meta.dirname, '..', 'fixtures', 'search-eval');

/** The kinds of query, in report order. */
export const KINDS = ['keyword', 'typo', 'tag', 'long', 'paraphrase', 'deprecated', 'near-miss', 'none'] as const;
/** One kind of query. */
export type QueryKind = (typeof KINDS)[number];

/**
 * One query with graded relevance: 2 for a skill that answers it (the one to follow),
 * 1 for a skill that helps without answering. No relevant skill: it must match nothing.
 */
export interface EvalQuery {
  query: string;
  kind: QueryKind;
  relevant: Record<string, number>;
}

/** The evaluation set. */
export interface EvalSet {
  skills: Skill[];
  dev: EvalQuery[];
  test: EvalQuery[];
}

/** Ranks skills for a query: slugs, best first. */
export type Ranker = (query: string) => string[];

/** Figures of one group of queries. */
export interface Figures {
  /** Queries that have an answer. */
  answerable: number;
  /** Mean reciprocal rank of the first answer (grade 2) in the top 5. */
  mrr: number;
  /** Share of queries whose first result is an answer. */
  hit1: number;
  /** Mean share of the answers found in the top 5 (of at most 5). */
  recall: number;
  /** Mean nDCG@5 over the grades. */
  ndcg: number;
  /** Share of the answerable queries that came back empty. */
  answerableEmpty: number;
  /** Queries that must match nothing. */
  unanswerable: number;
  /** Share of those that came back empty. */
  empty: number;
}

/** A query the ranker did not answer first (dev split only: the test split is never inspected). */
export interface Miss {
  query: string;
  kind: QueryKind;
  expected: string[];
  got: string[];
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** Loads the skills and both splits; throws on a file that does not parse or a label naming no skill. */
export async function loadEvalSet(dir = EVAL_DIR): Promise<EvalSet> {
  const skillDir = join(dir, 'skills');
  const skills: Skill[] = [];
  for (const name of (await readdir(skillDir)).filter((n) => n.endsWith('.md')).sort()) {
    const parsed = parseSkillText(name.slice(0, -3), await readFile(join(skillDir, name), 'utf8'), {
      learned_by: 'system',
      learned_at: new Date(0).toISOString(),
      category: 'general',
      difficulty: 'medium',
    });
    if (!parsed.ok) throw new Error(`${name}: ${parsed.message}`);
    skills.push(parsed.skill);
  }
  const slugs = new Set(skills.map((s) => s.slug));
  const split = async (file: string): Promise<EvalQuery[]> => {
    const queries = JSON.parse(await readFile(join(dir, file), 'utf8')) as EvalQuery[];
    for (const q of queries) {
      for (const slug of Object.keys(q.relevant)) if (!slugs.has(slug)) throw new Error(`${file}: "${q.query}" names unknown skill ${slug}`);
      if (!(KINDS as readonly string[]).includes(q.kind)) throw new Error(`${file}: "${q.query}" has unknown kind ${q.kind}`);
    }
    return queries;
  };
  return { skills, dev: await split('dev.json'), test: await split('test.json') };
}

/** Runs `ranker` over `queries`: figures per kind and overall, and the misses. */
export function evaluate(queries: EvalQuery[], ranker: Ranker): { byKind: Record<string, Figures>; all: Figures; misses: Miss[] } {
  type Sums = { answerable: number; rr: number; hit1: number; recall: number; ndcg: number; answerableEmpty: number; unanswerable: number; empty: number };
  const zero = (): Sums => ({ answerable: 0, rr: 0, hit1: 0, recall: 0, ndcg: 0, answerableEmpty: 0, unanswerable: 0, empty: 0 });
  const sums = new Map<string, Sums>();
  const all = zero();
  const misses: Miss[] = [];
  for (const q of queries) {
    const got = ranker(q.query).slice(0, 5);
    const kind = sums.get(q.kind) ?? zero();
    sums.set(q.kind, kind);
    const answers = Object.keys(q.relevant).filter((slug) => (q.relevant[slug] ?? 0) >= 2);
    for (const s of [kind, all]) {
      if (answers.length === 0) {
        s.unanswerable++;
        if (got.length === 0) s.empty++;
        continue;
      }
      s.answerable++;
      if (got.length === 0) s.answerableEmpty++;
      const first = got.findIndex((slug) => answers.includes(slug));
      if (first >= 0) s.rr += 1 / (first + 1);
      if (first === 0) s.hit1++;
      s.recall += got.filter((slug) => answers.includes(slug)).length / Math.min(5, answers.length);
      s.ndcg += ndcg(got, q.relevant);
    }
    const answered = answers.length === 0 ? got.length === 0 : answers.includes(got[0] ?? '');
    if (!answered) misses.push({ query: q.query, kind: q.kind, expected: answers, got });
  }
  const figures = (s: Sums): Figures => ({
    answerable: s.answerable,
    mrr: round(s.answerable ? s.rr / s.answerable : 0),
    hit1: round(s.answerable ? s.hit1 / s.answerable : 0),
    recall: round(s.answerable ? s.recall / s.answerable : 0),
    ndcg: round(s.answerable ? s.ndcg / s.answerable : 0),
    answerableEmpty: round(s.answerable ? s.answerableEmpty / s.answerable : 0),
    unanswerable: s.unanswerable,
    empty: round(s.unanswerable ? s.empty / s.unanswerable : 0),
  });
  const byKind: Record<string, Figures> = {};
  for (const kind of KINDS) {
    const s = sums.get(kind);
    if (s) byKind[kind] = figures(s);
  }
  return { byKind, all: figures(all), misses };
}

function ndcg(got: string[], relevant: Record<string, number>): number {
  const gain = (grade: number) => Math.pow(2, grade) - 1;
  const dcg = got.reduce((sum, slug, i) => sum + gain(relevant[slug] ?? 0) / Math.log2(i + 2), 0);
  const ideal = Object.values(relevant)
    .sort((a, b) => b - a)
    .slice(0, 5)
    .reduce((sum, grade, i) => sum + gain(grade) / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

/** The raw MiniSearch configurations org is compared with. */
export const RAW_CONFIGS = {
  /** `search(query)` with MiniSearch's defaults. */
  default: {} as SearchOptions,
  /** The floor of the issue: prefix, fuzzy 0.2, boosts name 3, tags 2, summary 2. */
  boosted: { prefix: true, fuzzy: 0.2, boost: { name: 3, tags: 2, summary: 2 } } as SearchOptions,
};

/**
 * A raw MiniSearch ranker over the same text org indexes (name, tags, triggers, summary,
 * category, body), with only `complete` skills indexed (which spares it the status rule);
 * with `stopWords`, org's stop words are dropped from text and queries (its `processTerm`
 * lowercases and drops them, as MiniSearch's documentation suggests).
 */
export function rawRanker(skills: Skill[], options: SearchOptions, { stopWords = false } = {}): Ranker {
  const mini = new MiniSearch({
    idField: 'slug',
    fields: ['name', 'tags', 'triggers', 'summary', 'category', 'body'],
    ...(stopWords ? { processTerm: (term: string) => (search.isStopWord(term.toLowerCase()) ? null : term.toLowerCase()) } : {}),
  });
  mini.addAll(
    skills
      .filter((s) => s.frontmatter.status === 'complete')
      .map((s) => ({
        slug: s.slug,
        name: s.frontmatter.name,
        tags: s.frontmatter.tags.join(' '),
        triggers: (s.frontmatter.triggers ?? []).join('\n'),
        summary: s.frontmatter.summary,
        category: s.frontmatter.category,
        body: s.body,
      })),
  );
  return (query) => mini.search(query, options).map((result) => String(result.id));
}
