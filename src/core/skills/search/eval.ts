/**
 * Offline evaluation of skill search: MRR@5 and Recall@5 on queries that expect
 * skills, and the share of must-match-nothing queries that come back empty. Used by
 * the relevance test and to compare our engine with MiniSearch's defaults.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { parseSkillText } from '../file-format.js';
import type { Skill } from '../types.js';
import { toSearchDocument, fieldText } from './document.js';
import { SEARCH_FIELDS } from './tuning.js';

/** One evaluation query: the acceptable skills (empty: must match nothing). */
export interface EvalQuery {
  query: string;
  expected: string[];
  kind?: string;
}

/** Ranks skills for a query: slugs, best first. */
export type Ranker = (query: string) => string[];

/** Figures of one evaluation run. */
export interface EvalReport {
  /** Mean reciprocal rank of the first expected skill within the top 5. */
  mrrAt5: number;
  /** Mean share of the expected skills found in the top 5. */
  recallAt5: number;
  /** Share of must-match-nothing queries that returned no match. */
  emptyRate: number;
  /** Number of queries expecting a match / expecting none. */
  matchQueries: number;
  noneQueries: number;
  /** Queries whose expected skill was not ranked first, or that should have been empty. */
  misses: { query: string; expected: string[]; got: string[] }[];
}

/** Runs `ranker` over `queries` and computes the figures. */
export function evaluate(queries: EvalQuery[], ranker: Ranker): EvalReport {
  let rr = 0;
  let recall = 0;
  let matchQueries = 0;
  let empty = 0;
  let noneQueries = 0;
  const misses: EvalReport['misses'] = [];
  for (const { query, expected } of queries) {
    const got = ranker(query).slice(0, 5);
    if (expected.length === 0) {
      noneQueries++;
      if (got.length === 0) empty++;
      else misses.push({ query, expected, got });
      continue;
    }
    matchQueries++;
    const rank = got.findIndex((slug) => expected.includes(slug));
    if (rank >= 0) rr += 1 / (rank + 1);
    recall += expected.filter((slug) => got.includes(slug)).length / expected.length;
    if (rank !== 0) misses.push({ query, expected, got });
  }
  const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);
  return {
    mrrAt5: ratio(rr, matchQueries),
    recallAt5: ratio(recall, matchQueries),
    emptyRate: ratio(empty, noneQueries),
    matchQueries,
    noneQueries,
    misses,
  };
}

/** Loads an evaluation folder: `skills/*.md` and `queries.json`. Throws on a bad file. */
export async function loadEvalSet(dir: string): Promise<{ skills: Skill[]; queries: EvalQuery[] }> {
  const skillDir = join(dir, 'skills');
  const skills: Skill[] = [];
  for (const name of (await readdir(skillDir)).filter((n) => n.endsWith('.md')).sort()) {
    const text = await readFile(join(skillDir, name), 'utf8');
    const parsed = parseSkillText(name.slice(0, -3), text, {
      learned_by: 'system',
      learned_at: new Date(0).toISOString(),
      category: 'general',
      difficulty: 'medium',
    });
    if (!parsed.ok) throw new Error(`${name}: ${parsed.message}`);
    skills.push(parsed.skill);
  }
  const queries = JSON.parse(await readFile(join(dir, 'queries.json'), 'utf8')) as EvalQuery[];
  return { skills, queries };
}

/**
 * The baseline: MiniSearch with default options over the same fields, plain
 * `search(query)`. Only `complete` skills are indexed, which spares it the status rule.
 */
export function rawMiniSearchRanker(skills: Skill[]): Ranker {
  const mini = new MiniSearch({
    idField: 'slug',
    fields: [...SEARCH_FIELDS],
    extractField: (doc, field) =>
      field === 'slug' ? doc.slug : fieldText(doc, field as (typeof SEARCH_FIELDS)[number]),
  });
  mini.addAll(skills.filter((s) => s.frontmatter.status === 'complete').map(toSearchDocument));
  return (query) => mini.search(query).map((result) => String(result.id));
}
