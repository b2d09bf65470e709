/**
 * The external evaluation split: a library written by others, derived at run time from
 * a local copy of a public benchmark, never committed. It is Berkeley's Function Calling
 * Leaderboard (BFCL, in the `ShishirPatil/gorilla` repository): every function of its
 * `simple_python`, `multiple`, `live_simple` and `live_multiple` sets becomes a skill
 * (its name as the name, its description as the summary, its parameters in the body),
 * and each question whose expected answer calls one function becomes a query whose
 * answers are the skills of that function's name. Questions with no word of three Latin
 * letters (13, in Chinese or Thai) are left out: the analysis reads English.
 *
 * The derivation is deterministic: the same files give the same skills, slugs, queries
 * and split. Queries are split in two by a hash of their benchmark id: `dev` is
 * calibrated on, `test` only reported.
 *
 * The path (`ORG_EVAL_EXTERNAL`, or `--external <dir>` of `npm run eval:search`) is the
 * repository's root or its `bfcl_eval/data` folder.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Skill } from '../../src/core/skills/index.js';
import type { EvalQuery } from './search-eval.js';

/** The external split: its skills and its two halves of queries. */
export interface ExternalSet {
  name: string;
  skills: Skill[];
  dev: EvalQuery[];
  test: EvalQuery[];
}

/** The BFCL sets read, in this order. */
const SETS = ['BFCL_v4_simple_python', 'BFCL_v4_multiple', 'BFCL_v4_live_simple', 'BFCL_v4_live_multiple'];
const DATA_DIRS = ['', 'bfcl_eval/data', 'berkeley-function-call-leaderboard/bfcl_eval/data'];

interface BfclFunction {
  name: string;
  description?: string;
  parameters?: { properties?: Record<string, { type?: string; description?: string }> };
}
interface BfclEntry {
  id: string;
  question: { role: string; content: string }[][];
  function: BfclFunction[];
}

/** The folder holding the BFCL files under `root`, or undefined. */
export function externalDataDir(root: string): string | undefined {
  return DATA_DIRS.map((dir) => join(root, dir)).find((dir) => existsSync(join(dir, `${SETS[0]}.json`)));
}

/** FNV-1a of a string: the split of a query is the parity of its benchmark id's hash. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

async function readLines<T>(file: string): Promise<T[]> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);
}

/** A slug for a function name (`Hotels_4_SearchHotel` → `hotels-4-searchhotel`), unique among `taken`. */
function slugFor(name: string, taken: Set<string>): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 58)
      .replace(/-+$/, '') || 'function';
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  taken.add(slug);
  return slug;
}

/** The skill of one function. */
function skillOf(fn: BfclFunction, slug: string): Skill {
  const params = Object.entries(fn.parameters?.properties ?? {}).map(([param, spec]) => `- \`${param}\`${spec.type ? ` (${spec.type})` : ''}: ${spec.description ?? ''}`);
  const body = `## [call] Step 1: Call ${fn.name}\n\n${params.length > 0 ? `Parameters:\n\n${params.join('\n')}\n` : 'It takes no parameters.\n'}`;
  return {
    slug,
    frontmatter: {
      type: 'skill',
      name: fn.name,
      category: 'general',
      difficulty: 'medium',
      tags: [],
      status: 'complete',
      summary: (fn.description ?? '').trim() || fn.name,
      learned_by: 'system',
      learned_at: '2025-01-01T00:00:00.000Z',
      tool_url: null,
    },
    body,
    steps: [{ id: 'call', n: 1, title: `Call ${fn.name}` }],
  };
}

/** Derives the external split from a local copy of the benchmark at `root`; throws when the files are not there. */
export async function loadExternalSet(root: string): Promise<ExternalSet> {
  const dir = externalDataDir(root);
  if (!dir) throw new Error(`no BFCL data under ${root} (expected ${SETS[0]}.json in it or in ${DATA_DIRS.slice(1).join(' or ')})`);
  const skills: Skill[] = [];
  const byFunction = new Map<string, string>();
  const slugsByName = new Map<string, string[]>();
  const taken = new Set<string>();
  const queries: (EvalQuery & { id: string })[] = [];
  for (const set of SETS) {
    const entries = await readLines<BfclEntry>(join(dir, `${set}.json`));
    const answers = new Map((await readLines<{ id: string; ground_truth: Record<string, unknown>[] }>(join(dir, 'possible_answer', `${set}.json`))).map((a) => [a.id, a.ground_truth]));
    for (const entry of entries) {
      for (const fn of entry.function) {
        const key = `${fn.name}\u0000${fn.description ?? ''}`;
        if (byFunction.has(key)) continue;
        const slug = slugFor(fn.name, taken);
        byFunction.set(key, slug);
        skills.push(skillOf(fn, slug));
        slugsByName.set(fn.name, [...(slugsByName.get(fn.name) ?? []), slug]);
      }
      const truth = answers.get(entry.id);
      if (!truth || truth.length !== 1) continue;
      const name = Object.keys(truth[0] ?? {})[0];
      const asked = entry.question[0]?.filter((message) => message.role === 'user').pop()?.content;
      if (!name || !asked || !/[A-Za-z]{3}/.test(asked)) continue;
      queries.push({ id: entry.id, query: asked.slice(0, 1000), kind: 'paraphrase', relevant: { [name]: 2 } });
    }
  }
  // Answers by function name: every version of the function answers.
  const resolved = queries
    .map((q) => {
      const name = Object.keys(q.relevant)[0] as string;
      const slugs = slugsByName.get(name) ?? [];
      return { ...q, relevant: Object.fromEntries(slugs.map((slug) => [slug, 2])) };
    })
    .filter((q) => Object.keys(q.relevant).length > 0);
  const strip = ({ id: _id, ...q }: EvalQuery & { id: string }): EvalQuery => q;
  return {
    name: 'BFCL v4 (simple, multiple, live simple, live multiple)',
    skills,
    dev: resolved.filter((q) => hash(q.id) % 2 === 0).map(strip),
    test: resolved.filter((q) => hash(q.id) % 2 === 1).map(strip),
  };
}
