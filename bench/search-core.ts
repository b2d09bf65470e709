/**
 * Benchmark of the skill core, in process, beside raw MiniSearch on the same documents:
 * the index build (org's MiniSearch with its analysis against MiniSearch's defaults), the
 * store's cold start (every file read, parsed and indexed) and warm start (the snapshot:
 * MiniSearch's JSON restored with `loadJSONAsync`), the snapshot's size, search latency
 * and the garbage of one search, memory, the watcher's start at this size (chokidar
 * stats every file and watches each), and the time from a file written to the edit being
 * searchable, for files changed and for files added (p50 and p95 of each).
 *
 * `benchSearchCore(n)` generates n skills with a realistic business vocabulary in a
 * temporary folder, measures, cleans up and returns the figures (milliseconds, MiB).
 */
import { mkdtemp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { createSkillStore, search, serializeSkill, parseSteps, snapshotPath, type Skill, type SkillFrontmatter, type SkillStore } from '../src/core/skills/index.js';

/** The figures of one run. */
export interface SearchCoreBench {
  skills: number;
  /** In-process index build from parsed skills: org's (its analysis, its fields) and raw MiniSearch's defaults, and their ratio. */
  buildMs: { ours: number; raw: number; ratio: number };
  /** Store ready with no snapshot (reads, parses and indexes every file). */
  coldStartMs: number;
  /** Store ready from the snapshot (reads no skill file). */
  warmStartMs: number;
  /** Size of the snapshot file. */
  snapshotMb: number;
  /** Search latency over generated queries: org, raw MiniSearch defaults, raw MiniSearch boosted (prefix, fuzzy). */
  searchMs: { ours: { p50: number; p99: number }; raw: { p50: number; p99: number }; rawBoosted: { p50: number; p99: number }; ratio: number };
  /** Heap allocated by one search (median of 50, measured between full collections), in KiB. */
  garbageKb: { ours: number; raw: number };
  /** Resident set size after the warm start, and heap held by each index. */
  memoryMb: { rssAfterWarmStart: number; oursHeap: number; rawHeap: number; ratio: number };
  /** The watcher's first scan at this size: wall time, CPU time and RSS it added. */
  watcherStart: { ms: number; cpuMs: number; rssMb: number };
  /** File written → found by search through the watcher: a changed file and an added one (20 each). */
  editToSearchableMs: { changed: { p50: number; p95: number }; added: { p50: number; p95: number } };
  /** 1,000 files written at once (a git checkout) → all listed, measured from the end of the writes. */
  burst1000Ms: { write: number; visibleAfterWrite: number };
}

const VERBS = ['review', 'plan', 'prepare', 'audit', 'draft', 'run', 'escalate', 'reconcile', 'launch', 'migrate', 'triage', 'onboard', 'forecast', 'negotiate', 'publish', 'analyse', 'schedule', 'approve', 'renew', 'investigate'];
const OBJECTS = ['invoice', 'contract', 'incident', 'release', 'budget', 'campaign', 'proposal', 'survey', 'backlog', 'dashboard', 'vendor', 'offsite', 'newsletter', 'interview', 'roadmap', 'pipeline', 'refund', 'access', 'database', 'report', 'postmortem', 'webinar', 'quote', 'payroll', 'ticket'];
const DOMAINS = ['sales', 'marketing', 'engineering', 'support', 'research', 'finance', 'operations', 'people', 'legal', 'product', 'data', 'security'];
const QUALIFIERS = ['quarterly', 'overdue', 'enterprise', 'urgent', 'annual', 'regional', 'customer', 'partner', 'internal', 'public', 'critical', 'weekly'];
const SENTENCES = [
  'Collect the relevant documents and confirm who owns the decision.',
  'Check the numbers against last month and explain any large variance.',
  'Write a short summary for stakeholders with risks and next steps.',
  'Book a meeting with the account owner and agree on a deadline.',
  'Update the tracker so the status is visible to the whole team.',
  'Ask legal or finance for approval when the amount exceeds the limit.',
  'Test the change on staging before touching production systems.',
  'Send a polite reminder and attach the original document.',
  'Record the outcome in the CRM and close the task.',
  'Measure the result after two weeks and report what changed.',
  'Escalate to the manager on call when customers are blocked.',
  'Archive the evidence for the next audit.',
];

const ANIMALS = ['zanzibar', 'quokka', 'narwhal', 'axolotl', 'capybara', 'pangolin', 'okapi', 'tapir', 'wombat', 'ibex'];

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generate(n: number): { slug: string; frontmatter: SkillFrontmatter; body: string }[] {
  const rand = rng(42);
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)] as T;
  const out = [];
  for (let i = 0; i < n; i++) {
    const verb = pick(VERBS);
    const object = pick(OBJECTS);
    const qualifier = pick(QUALIFIERS);
    const domain = pick(DOMAINS);
    const name = `${verb[0]?.toUpperCase()}${verb.slice(1)} the ${qualifier} ${object} (${domain} ${i})`;
    const steps = 3 + Math.floor(rand() * 4);
    let body = `# ${name}\n\nUse it when a ${qualifier} ${object} needs attention in ${domain}.\n\n`;
    for (let s = 1; s <= steps; s++) {
      body += `## [s${s}] Step ${s}: ${pick(VERBS)} the ${pick(OBJECTS)}\n\n${pick(SENTENCES)} ${pick(SENTENCES)}\n\n`;
    }
    out.push({
      slug: `${verb}-${qualifier}-${object}-${i}`,
      frontmatter: {
        type: 'skill',
        name,
        category: domain,
        difficulty: pick(['low', 'medium', 'high'] as const),
        tags: [object, qualifier, domain],
        status: rand() < 0.9 ? 'complete' : 'draft',
        summary: `${verb} the ${qualifier} ${object} for the ${domain} team. ${pick(SENTENCES)}`,
        learned_by: 'system',
        learned_at: '2025-01-01T00:00:00.000Z',
        tool_url: null,
      } satisfies SkillFrontmatter,
      body,
    });
  }
  return out;
}

export function queries(count: number): string[] {
  const rand = rng(7);
  const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)] as T;
  const out = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 4;
    if (kind === 0) out.push(`${pick(VERBS)} ${pick(OBJECTS)}`);
    else if (kind === 1) out.push(`how do I ${pick(VERBS)} the ${pick(QUALIFIERS)} ${pick(OBJECTS)} for ${pick(DOMAINS)}?`);
    else if (kind === 2) out.push(`hi, quick one: our ${pick(OBJECTS)} is late and the ${pick(DOMAINS)} team is waiting. ${pick(SENTENCES)}`);
    else out.push(pick(['thanks a lot', 'what is the weather tomorrow', 'tell me a joke', 'hello there']));
  }
  return out;
}

const percentile = (sorted: number[], p: number): number =>
  Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0) * 1000) / 1000;
const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;
const round = (ms: number): number => Math.round(ms);

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** Writes `count` edits through `write(i)` and times each until `found(i)` is true, resolved by the store's change events. */
async function editLatencies(store: SkillStore, count: number, write: (i: number) => Promise<void>, found: (i: number) => boolean): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const seen = new Promise<void>((resolve) => {
      const stop = store.subscribe(() => {
        if (!found(i)) return;
        stop();
        resolve();
      });
    });
    await write(i);
    await Promise.race([seen, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    out.push(performance.now() - started);
  }
  return out.sort((a, b) => a - b);
}

/** Runs the benchmark on `n` generated skills. */
export async function benchSearchCore(n: number): Promise<SearchCoreBench> {
  const home = await mkdtemp(join(tmpdir(), 'org-bench-'));
  const root = join(home, 'skills');
  const stateDir = join(home, '.org');
  try {
    await mkdir(root, { recursive: true });
    const generated = generate(n);
    for (let i = 0; i < generated.length; i += 256) {
      await Promise.all(generated.slice(i, i + 256).map((g) => writeFile(join(root, `${g.slug}.md`), serializeSkill(g.frontmatter, g.body))));
    }

    // Store start-up, cold then warm (the snapshot is saved at close).
    let started = performance.now();
    const cold = await createSkillStore({ root, stateDir });
    const coldStartMs = performance.now() - started;
    await cold.close();
    started = performance.now();
    const warm = await createSkillStore({ root, stateDir });
    const warmStartMs = performance.now() - started;
    const rss = process.memoryUsage().rss;
    await warm.close();
    const { size } = await stat(snapshotPath(stateDir));

    // In-process index build.
    const skills: Skill[] = generated.map((g) => ({ ...g, steps: parseSteps(g.body) }));
    const docs = skills.map((s) => search.toSearchDocument(s));
    let before = heapUsed();
    started = performance.now();
    const wordnet = search.createWordNet();
    const ours = search.createSkillIndex({ synonyms: wordnet });
    for (const doc of docs) ours.set(doc);
    const oursBuild = performance.now() - started;
    const oursHeap = heapUsed() - before;
    before = heapUsed();
    started = performance.now();
    const raw = new MiniSearch({ idField: 'slug', fields: ['name', 'tags', 'summary', 'category', 'body'] });
    raw.addAll(skills.map((s) => ({ slug: s.slug, name: s.frontmatter.name, tags: s.frontmatter.tags.join(' '), summary: s.frontmatter.summary, category: s.frontmatter.category, body: s.body })));
    const rawBuild = performance.now() - started;
    const rawHeap = heapUsed() - before;

    // Search latency.
    const qs = queries(400);
    const time = (fn: (q: string) => unknown): number[] => {
      for (const q of qs.slice(0, 20)) fn(q);
      return qs
        .map((q) => {
          const t = performance.now();
          fn(q);
          return performance.now() - t;
        })
        .sort((a, b) => a - b);
    };
    const oursTimes = time((q) => ours.search(q, { limit: 5 }));
    const rawTimes = time((q) => raw.search(q).slice(0, 5));
    const boosted = { prefix: true, fuzzy: 0.2, boost: { name: 3, tags: 2, summary: 2 } };
    const rawBoostedTimes = time((q) => raw.search(q, boosted).slice(0, 5));
    const garbage = (fn: (q: string) => unknown): number => {
      const sizes = qs.slice(0, 50).map((q) => {
        const start = heapUsed();
        fn(q);
        return process.memoryUsage().heapUsed - start;
      });
      sizes.sort((a, b) => a - b);
      return Math.round((sizes[25] ?? 0) / 1024);
    };
    const garbageKb = { ours: garbage((q) => ours.search(q, { limit: 5 })), raw: garbage((q) => raw.search(q).slice(0, 5)) };
    wordnet.close();

    // The watcher at this size: its first scan stats every file and watches each.
    const cpu = process.cpuUsage();
    const rssBefore = process.memoryUsage().rss;
    started = performance.now();
    const watching = await createSkillStore({ root, stateDir, watch: true });
    await watching.settle({ snapshot: false });
    const watcherStart = { ms: round(performance.now() - started), cpuMs: round((process.cpuUsage(cpu).user + process.cpuUsage(cpu).system) / 1000), rssMb: mb(process.memoryUsage().rss - rssBefore) };

    // Edit → searchable, a changed file then an added one.
    const fm = (i: number, name: string): SkillFrontmatter => ({ ...(generated[i % generated.length]?.frontmatter as SkillFrontmatter), name, status: 'complete' });
    const word = (i: number) => `${ANIMALS[i % ANIMALS.length] ?? 'animal'}${i}x`;
    const changed = await editLatencies(
      watching,
      20,
      (i) => writeFile(join(root, `${generated[i]?.slug ?? 'x'}.md`), serializeSkill(fm(i, `Changed ${word(i)}`), `About ${word(i)}.\n`)),
      (i) => watching.search(word(i)).length > 0,
    );
    const added = await editLatencies(
      watching,
      20,
      (i) => writeFile(join(root, `bench-added-${i}.md`), serializeSkill(fm(i, `Added ${word(i + 100)}`), `About ${word(i + 100)}.\n`)),
      (i) => watching.search(word(i + 100)).length > 0,
    );
    // A git checkout: 1,000 new files at once → all listed.
    const listedBefore = watching.count();
    const burstWritten = performance.now();
    await Promise.all(Array.from({ length: 1000 }, (_, i) => writeFile(join(root, `bench-burst-${i}.md`), serializeSkill(fm(i, `Burst ${i}`), `Burst ${i}.\n`))));
    const burstStart = performance.now();
    while (watching.count() < listedBefore + 1000 && performance.now() - burstStart < 30_000) await new Promise((resolve) => setTimeout(resolve, 5));
    const burstMs = performance.now() - burstStart;
    const burstWriteMs = burstStart - burstWritten;
    await watching.close();

    return {
      skills: n,
      buildMs: { ours: round(oursBuild), raw: round(rawBuild), ratio: Math.round((oursBuild / rawBuild) * 100) / 100 },
      coldStartMs: round(coldStartMs),
      warmStartMs: round(warmStartMs),
      snapshotMb: mb(size),
      searchMs: {
        ours: { p50: percentile(oursTimes, 0.5), p99: percentile(oursTimes, 0.99) },
        raw: { p50: percentile(rawTimes, 0.5), p99: percentile(rawTimes, 0.99) },
        rawBoosted: { p50: percentile(rawBoostedTimes, 0.5), p99: percentile(rawBoostedTimes, 0.99) },
        ratio: Math.round((percentile(oursTimes, 0.5) / Math.max(percentile(rawTimes, 0.5), 0.001)) * 100) / 100,
      },
      garbageKb,
      memoryMb: { rssAfterWarmStart: mb(rss), oursHeap: mb(oursHeap), rawHeap: mb(rawHeap), ratio: Math.round((oursHeap / Math.max(rawHeap, 1)) * 100) / 100 },
      watcherStart,
      editToSearchableMs: {
        changed: { p50: round(percentile(changed, 0.5)), p95: round(percentile(changed, 0.95)) },
        added: { p50: round(percentile(added, 0.5)), p95: round(percentile(added, 0.95)) },
      },
      burst1000Ms: { write: round(burstWriteMs), visibleAfterWrite: round(burstMs) },
    };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
