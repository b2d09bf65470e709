import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempHome, skillText, type TempHome } from '../../../test/helpers/skills.js';
import { loadCatalog } from './loader.js';
import { resolveStoreOptions } from './options.js';
import { parseInWorkers } from './parse-pool.js';
import { parseSlice } from './parsed-file.js';
import { encodeSnapshot } from './search/snapshot.js';

const WORDS = 'invoice refund payroll vendor onboarding laptop firewall backup contract renewal audit expense travel hiring offboarding incident outage'.split(' ');
const FILES = 700;
const STRUCTURE = '00000000-0000-4000-8000-000000000001';

let home: TempHome;
beforeAll(async () => {
  home = await tempHome('org-parse-pool-');
  await mkdir(home.root, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const a = WORDS[i % WORDS.length] as string;
    const b = WORDS[(i * 7 + 3) % WORDS.length] as string;
    const lines = ['type: skill', `name: "Handle ${a} ${b} ${i}"`, `status: ${i % 11 === 0 ? 'deprecated' : i % 5 === 0 ? 'draft' : 'complete'}`, `tags: [${a}, ${b}]`, `summary: "How the team handles ${a} requests about ${b}, case ${i}."`];
    // Every 13th is a structure's own skill, in the structure's folder.
    if (i % 13 === 0) lines.push(`structure_id: ${STRUCTURE}`);
    if (i % 9 === 0) lines.push(`triggers: ["my ${a} is stuck", "need help with ${b}"]`);
    await mkdir(join(home.root, STRUCTURE), { recursive: true });
    await writeFile(join(home.root, ...(i % 13 === 0 ? [STRUCTURE] : []), `skill-${i}.md`), skillText(lines, `# Handle ${a}\n\nWhen ${a} and ${b} meet, follow these steps.\n\n## [s1] Step 1: Check the ${b}\n\nLook at the ${a} record ${i}.\n`));
  }
  // Files that do not load: bad front matter, and a link; a name that is not a slug.
  await writeFile(join(home.root, 'broken-1.md'), '---\nname: [unclosed\n---\nBody\n');
  await writeFile(join(home.root, 'broken-2.md'), 'no front matter at all\n');
  await symlink(join(home.root, 'skill-1.md'), join(home.root, 'linked.md'));
  await writeFile(join(home.root, 'Not_A_Slug.md'), skillText(['type: skill', 'name: x', 'status: complete']));
}, 60_000);
afterAll(() => home.cleanup());

async function load(parseWorkers: number) {
  const options = resolveStoreOptions({ root: home.root, stateDir: join(home.home, `.org-${parseWorkers}`), persistIndex: false, parseWorkers, parseWorkersMinFiles: 1 });
  return loadCatalog(options, {});
}

/**
 * Reads every slice of `slices`, checking each is what the main thread would parse for
 * its files; returns the slugs in the order they came and how many the workers parsed.
 */
async function drainChecked(slices: ReturnType<typeof parseInWorkers>): Promise<{ seen: string[]; inWorkers: number }> {
  const seen: string[] = [];
  let next = await slices.next();
  for (; !next.done; next = await slices.next()) {
    const slice = next.value;
    expect(slice).toEqual(parseSlice(home.root, slice.files.map((file) => file.key)));
    seen.push(...slice.files.map((file) => file.key));
  }
  return { seen, inWorkers: next.value.inWorkers };
}

describe('parsing a library in worker threads', () => {
  it('builds the same catalog and the same index, byte for byte, as the parse on the main thread', { timeout: 60_000 }, async () => {
    const main = await load(0);
    const workers = await load(2);
    expect(main.report.read).toBe(FILES + 3);
    expect(workers.report).toMatchObject({ read: main.report.read, problems: main.report.problems });
    expect(main.report.problems).toBe(4);
    // Not vacuous: the workers parsed the slices they took at once (two each, 128 files a
    // slice); the main thread may have parsed the last ones meanwhile.
    expect(workers.report.parsedInWorkers).toBeGreaterThanOrEqual(4 * 128);
    expect(main.report.parsedInWorkers).toBe(0);
    expect([...workers.catalog.records]).toEqual([...main.catalog.records]);
    expect([...workers.catalog.problems]).toEqual([...main.catalog.problems]);
    const bytes = (index: typeof main.catalog.index) => encodeSnapshot({}, index.toData());
    expect(Buffer.compare(bytes(workers.catalog.index), bytes(main.catalog.index))).toBe(0);
    expect(workers.catalog.index.size).toBe(FILES);
    const query = 'stuck payroll vendor';
    expect(workers.catalog.index.search(query, { limit: 10 })).toEqual(main.catalog.index.search(query, { limit: 10 }));
    expect(main.catalog.index.search(query).length).toBeGreaterThan(0);
  });

  it('hands the slices back in order, each as the main thread would parse it', { timeout: 60_000 }, async () => {
    const slugs = Array.from({ length: 300 }, (_, i) => `skill-${(i * 37) % FILES}`);
    const { seen, inWorkers } = await drainChecked(parseInWorkers(home.root, slugs, 3));
    expect(seen).toEqual(slugs);
    expect(inWorkers).toBe(slugs.length);
  });

  it('with share, the caller parses the last slices while it waits, and every slice still comes in order', { timeout: 60_000 }, async () => {
    const slugs = Array.from({ length: 300 }, (_, i) => `skill-${(i * 37) % FILES}`);
    // One worker takes slices 0 and 1 at once; the caller, waiting for slice 0, parses slice 2.
    const { seen, inWorkers } = await drainChecked(parseInWorkers(home.root, slugs, 1, { share: true }));
    expect(seen).toEqual(slugs);
    expect(inWorkers).toBe(256);
  });
});
