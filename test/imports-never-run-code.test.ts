/**
 * Front matter is data (API.md §10): whatever a text's first line says after its dashes
 * (`---js`, `---javascript`, `--- js`, `---coffee`, a byte order mark before `---js`, …)
 * nothing in it is ever evaluated, by any path a text enters org: a zip import (dry run
 * and real), a skill file in the instance library or a structure's folder (at start and
 * while running), a restore from the deleted area, an API write's body, the CLI's lint and
 * the trigger helper. The payload would write a file as the server's user; the marker
 * must never appear. Also: YAML aliases in front matter are refused before anything is
 * built from them, and refused and dry-run imports are in the audit log.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import matter from 'gray-matter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillsLint } from '../src/cli/commands/skills-author.js';
import { addTriggers } from '../src/core/skills/index.js';
import { capture } from './cli-helpers.js';
import { expectProblem, fetchAnswer } from './helpers/problem.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { nextChange } from './helpers/skills.js';

const enc = (text: string) => new TextEncoder().encode(text);

let work: string;
let marker: string;
let t: TestInstance;
let owner: { token: string; id: string };
let structureId: string;

/** JavaScript that writes the marker file when evaluated (what gray-matter's `---js` engine does with it). */
const payload = () => `(require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran'), { name: 'ran-code', description: 'it ran', type: 'skill', status: 'complete' })`;

/** Every opening line that names (or hides) another language than YAML. */
const OPENINGS: [string, (code: string) => string][] = [
  ['---js', (code) => `---js\n${code}\n---\n# Body\n`],
  ['---javascript', (code) => `---javascript\n${code}\n---\n# Body\n`],
  ['--- js', (code) => `--- js\n${code}\n---\n# Body\n`],
  ['---JS', (code) => `---JS\n${code}\n---\n# Body\n`],
  ['---js with CRLF', (code) => `---js\r\n${code}\r\n---\r\n# Body\r\n`],
  ['---\tjavascript', (code) => `---\tjavascript\n${code}\n---\n# Body\n`],
  ['---coffee', (code) => `---coffee\n${code}\n---\n# Body\n`],
  ['BOM then ---js', (code) => `\uFEFF---js\n${code}\n---\n# Body\n`],
  ['---json', () => `---json\n{"name": "as json", "description": "json front matter", "type": "skill", "status": "complete"}\n---\n# Body\n`],
];

const zipOf = (files: Record<string, string>) => zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, enc(text)])));

const importZip = (zip: Uint8Array, query: string) =>
  fetch(`${t.url}/api/org/knowledge/import?structure_id=${structureId}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/zip' },
    body: zip,
  });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'org-no-code-'));
  marker = join(work, 'RAN');
  t = await startInstance({ listen: true });
  owner = await t.createUser('owner@example.com');
  structureId = (await t.createStructure(owner.token, 'blank')).id;
});
afterAll(async () => {
  await t.close();
  await rm(work, { recursive: true, force: true });
});

describe('imports never run code', () => {
  it('the payload runs when gray-matter is left to pick its engine (so every check below is meaningful)', async () => {
    // gray-matter's defaults evaluate `---js`: this is what org must never let happen.
    matter(OPENINGS[0]![1](payload()));
    expect(existsSync(marker)).toBe(true);
    await rm(marker);
  });

  it.each(OPENINGS)('%s in a zip import: refused in the dry run and the real import, never run', async (_name, text) => {
    const zip = zipOf({ 'ran-code/SKILL.md': text(payload()) });
    for (const query of ['', '&dry_run=false']) {
      const answer = await importZip(zip, query);
      expect(answer.status).toBe(200);
      const report = (await answer.json()) as { skills: { action: string; problem?: string }[] };
      expect(report.skills).toEqual([expect.objectContaining({ action: 'skip', problem: expect.stringMatching(/exactly ---/) })]);
    }
    expect(existsSync(marker)).toBe(false);
    expect(await t.app.skills.get('ran-code', structureId)).toBeUndefined();
  });

  it.each(OPENINGS)('%s in a skill file of the library and of a structure’s folder: a problem, never run', async (name, text) => {
    const slug = `file-${name.replace(/[^a-z]+/gi, '-').toLowerCase().replace(/^-|-$/g, '')}`;
    const instanceFile = nextChange(t.app.skills, (event) => event.type === 'problem' && event.file === `${slug}.md`, `the problem of ${slug}.md`);
    await writeFile(join(t.home, 'skills', `${slug}.md`), text(payload()));
    await instanceFile;
    const structureFile = nextChange(t.app.skills, (event) => event.type === 'problem' && event.file === `${structureId}/${slug}.md`, 'the structure’s file');
    await mkdir(join(t.home, 'skills', structureId), { recursive: true });
    await writeFile(join(t.home, 'skills', structureId, `${slug}.md`), text(payload()));
    await structureFile;
    expect(existsSync(marker)).toBe(false);
    const problems = (await fetchAnswer(t.url, { method: 'GET', url: `/api/org/knowledge/problems?structure_id=${structureId}`, headers: t.auth(owner.token) })).json<{
      problems: { file: string; message: string }[];
    }>().problems;
    expect(problems).toEqual(expect.arrayContaining([expect.objectContaining({ file: `${slug}.md` }), expect.objectContaining({ file: `${structureId}/${slug}.md` })]));
  });

  it('files present at start, a restore from the deleted area, an API write’s body, the CLI’s lint and the trigger helper never run it either', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-no-code-home-'));
    await mkdir(join(home, 'skills', '.deleted'), { recursive: true });
    for (const [i, [, text]] of OPENINGS.entries()) await writeFile(join(home, 'skills', `at-start-${i}.md`), text(payload()));
    await writeFile(join(home, 'skills', '.deleted', 'trashed--2026-01-01T00-00-00.000Z.md'), OPENINGS[0]![1](payload()));
    const started = await startInstance({ home });
    try {
      expect(started.app.skills.problems({ all: true }).map((problem) => problem.file)).toEqual(OPENINGS.map((_, i) => `at-start-${i}.md`));
      const restore = await started.server.inject({ method: 'POST', url: '/api/org/knowledge/skills/trashed/restore', headers: started.auth() });
      expectProblem(restore, 400, 'invalid_request');
      // A body is markdown after the front matter org writes: text that looks like front matter stays body text.
      const sid = (await started.createStructure((await started.createUser('writer@example.com')).token, 'blank')).id;
      const body = `${OPENINGS[0]![1](payload())}`;
      const written = await started.server.inject({
        method: 'POST',
        url: '/api/org/knowledge/skills',
        headers: started.auth(),
        payload: { structure_id: sid, slug: 'body-like-front-matter', frontmatter: { type: 'skill', name: 'Body', status: 'draft' }, body },
      });
      expect(written.statusCode, written.body).toBe(201);
      expect((await started.app.skills.get('body-like-front-matter', sid))?.body).toBe(body);
    } finally {
      await started.close();
    }
    const out = capture();
    expect(await runSkillsLint({ paths: [join(home, 'skills')] }, { cwd: home, output: out.output, env: {} })).toBe(1);
    expect(`${out.text()}\n${out.errText()}`).toMatch(/at-start-0\.md:1: error: no YAML front matter: the first line must be exactly ---/);
    for (const [, text] of OPENINGS) expect(() => addTriggers(text(payload()), ['a request'])).toThrow(/exactly ---/);
    expect(existsSync(marker)).toBe(false);
    await rm(home, { recursive: true, force: true });
  });

  it('refused uploads and dry runs are in the audit log', async () => {
    const before = async () => (await fetchAnswer(t.url, { method: 'GET', url: '/api/org/audit?action=skill.import,skill.import_dry_run&limit=500', headers: t.auth() })).json<{ entries: { action: string; status: number; structure_id: string | null }[] }>().entries;
    const seen = (await before()).length;
    expect((await importZip(enc('not a zip at all'), '')).status).toBe(400);
    expect((await importZip(zipOf({ 'x/SKILL.md': OPENINGS[0]![1](payload()) }), '')).status).toBe(200);
    const entries = (await before()).slice(0, (await before()).length - seen);
    expect(entries.map((entry) => [entry.action, entry.status, entry.structure_id])).toEqual([
      ['skill.import_dry_run', 200, structureId],
      ['skill.import_dry_run', 400, structureId],
    ]);
  });

  it('only the front matter reader imports gray-matter or a YAML engine that could run code', async () => {
    const offenders: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
          const text = await readFile(path, 'utf8');
          if (/from ['"](gray-matter|js-yaml)['"]|require\(['"](gray-matter|js-yaml)['"]\)/.test(text)) offenders.push(path.slice(path.indexOf('/src/') + 1));
        }
      }
    };
    const root = join(import.meta.dirname, '..');
    await walk(join(root, 'src'));
    await walk(join(root, 'web', 'src'));
    expect(offenders).toEqual(['src/core/skills/front-matter-read.ts']);
  });
});

describe('front matter aliases are refused before expansion', () => {
  /** An alias bomb: each level lists the previous one `width` times (`width ** depth` values once expanded). */
  const bomb = (depth: number, width: number) => {
    const lines = ['name: bomb', 'description: expands', 'l0: &l0 [x]'];
    for (let i = 1; i <= depth; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(',')}]`);
    return `---\n${lines.join('\n')}\n---\n# Bomb\n`;
  };

  it('an import whose front matter uses aliases is skipped, saying why (a few hundred bytes that would expand to a million values)', async () => {
    const text = bomb(6, 10);
    expect(text.length).toBeLessThan(400);
    const answer = await importZip(zipOf({ 'bomb/SKILL.md': text }), '&dry_run=false');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { skills: unknown[] }).skills).toEqual([expect.objectContaining({ action: 'skip', problem: expect.stringContaining('YAML aliases') })]);
    expect(await t.app.skills.get('bomb', structureId)).toBeUndefined();
  });

  it('at the limit: anchors without aliases, and * inside values, are read; one alias is refused, in a file as in an import', async () => {
    const fine = '---\nname: fine\ndescription: "*bold* text, and a star: *"\nmetadata: &meta\n  team: ar\nnotes: |\n  *not an alias*\n---\n# Fine\n';
    const one = '---\nname: one-alias\ndescription: d\nbase: &b [x]\ncopy: *b\n---\n# One\n';
    const report = await (await importZip(zipOf({ 'fine/SKILL.md': fine, 'one-alias/SKILL.md': one }), '')).json() as { skills: { slug: string; action: string; problem?: string }[] };
    expect(report.skills).toEqual([
      expect.objectContaining({ slug: 'fine', action: 'create' }),
      expect.objectContaining({ slug: 'one-alias', action: 'skip', problem: expect.stringContaining('YAML aliases (*name) are not allowed') }),
    ]);
    const problem = nextChange(t.app.skills, (event) => event.type === 'problem' && event.file === 'aliased.md', 'the problem of aliased.md');
    await writeFile(join(t.home, 'skills', 'aliased.md'), '---\ntype: skill\nname: &n Aliased\nsummary: *n\nstatus: complete\n---\nBody.\n');
    expect(await problem).toMatchObject({ message: expect.stringContaining('YAML aliases') });
  });
});
