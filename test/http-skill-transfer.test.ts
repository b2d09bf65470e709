/**
 * Agent Skills export and import over HTTP and through the CLI: GET …/skills/{slug}/export
 * answers a zip of a valid Agent Skill folder; POST /knowledge/import answers a dry-run
 * report first and writes with dry_run=false; the role rules (operator or owner to
 * import, read to export, never a node key to import); bad uploads are clear 4xx
 * problems; `org skills export --to DIR` then `org skills import DIR` restores the
 * skills exactly, and a `.claude/skills`-style tree imports with its script files.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import matter from 'gray-matter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSkillsExport, runSkillsImport } from '../src/cli/commands/skills-transfer.js';
import { agentSkills } from '../src/core/skills/index.js';
import { capture, depsFor } from './cli-helpers.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const enc = (text: string) => new TextEncoder().encode(text);

let t: TestInstance;
let owner: { token: string; id: string };
let viewer: { token: string; id: string };
let structure: { id: string; agents: { role_id: string }[] };
let work: string;

beforeAll(async () => {
  t = await startInstance({ listen: true });
  owner = await t.createUser('owner@example.com');
  viewer = await t.createUser('viewer@example.com');
  structure = await t.createStructure(owner.token, 'personal');
  await t.app.members.set(structure.id, viewer.id, 'viewer');
  await t.app.skills.upsert({
    slug: 'chase-overdue-invoices',
    frontmatter: { type: 'skill', name: 'Chase overdue invoices', status: 'complete', summary: 'Collect overdue payments.', tags: ['ar'], category: 'finance' },
    body: '## [pull] Step 1: Pull the aging report\n- Group by age.\n',
    structureId: structure.id,
  });
  await t.app.skills.putFiles('chase-overdue-invoices', new Map([['scripts/aging.sh', enc('#!/bin/sh\necho aging\n')]]), { structureId: structure.id });
  work = await mkdtemp(join(tmpdir(), 'org-transfer-'));
});

afterAll(async () => {
  await t.close();
  await rm(work, { recursive: true, force: true });
});

const exportZip = (token: string, slug = 'chase-overdue-invoices') =>
  fetch(new URL(`/api/org/knowledge/skills/${slug}/export?structure_id=${structure.id}`, t.url), { headers: { authorization: `Bearer ${token}` } });
const importZip = (token: string, body: Uint8Array | string, query = '', type = 'application/zip') =>
  fetch(new URL(`/api/org/knowledge/import?structure_id=${structure.id}${query}`, t.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': type },
    body,
  });

describe('HTTP', () => {
  it('export: a zip holding <slug>/SKILL.md (a valid Agent Skill) and the skill’s files; readable by a viewer', async () => {
    const response = await exportZip(viewer.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    const { folders } = await agentSkills.unzipFolders(new Uint8Array(await response.arrayBuffer()));
    expect(folders.map((folder) => [folder.name, [...folder.files.keys()]])).toEqual([['chase-overdue-invoices', ['SKILL.md', 'scripts/aging.sh']]]);
    const md = matter(new TextDecoder().decode(folders[0]!.files.get('SKILL.md')), {});
    expect(agentSkills.validateAgentSkill(md.data, 'chase-overdue-invoices')).toEqual([]);
    expect((await exportZip(viewer.token, 'no-such-skill')).status).toBe(404);
  });

  it('import: a dry-run report first (nothing written), then written with dry_run=false; roles and bad uploads', async () => {
    const zip = agentSkills.zipFolders([
      { name: 'review-code', files: new Map([['SKILL.md', enc('---\nname: review-code\ndescription: Reviews a change. Use when asked for a review.\n---\n# Review code\n\n1. Read the diff\n2. Comment\n')], ['scripts/lint.sh', enc('exit 0\n')]]) },
    ]);
    const dry = await importZip(owner.token, zip);
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({ dry_run: true, skills: [{ slug: 'review-code', action: 'create', origin: 'foreign', status: 'draft', files: ['scripts/lint.sh'] }] });
    expect(await t.app.skills.get('review-code', structure.id)).toBeUndefined();

    const applied = await importZip(owner.token, zip, '&dry_run=false');
    expect(applied.status).toBe(200);
    expect((await applied.json()) as unknown).toMatchObject({ dry_run: false, skills: [{ action: 'create' }] });
    const stored = (await t.app.skills.get('review-code', structure.id))!;
    expect(stored.steps.map((step) => step.title)).toEqual(['Read the diff', 'Comment']);
    expect(new TextDecoder().decode((await t.app.skills.files('review-code', structure.id)).get('scripts/lint.sh'))).toBe('exit 0\n');
    expect(await (await importZip(owner.token, zip)).json()).toMatchObject({ skills: [{ action: 'unchanged' }] });

    expect((await importZip(viewer.token, zip)).status).toBe(403);
    const minted = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structure.id}/agents/${structure.agents[0]!.role_id}/mcp-key`, headers: t.auth(owner.token) });
    expect((await importZip(minted.json<{ token: string }>().token, zip)).status).toBe(403);
    const json = await importZip(owner.token, '{}', '', 'application/json');
    expect(json.status).toBe(415);
    const garbage = await importZip(owner.token, enc('not a zip'));
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toMatchObject({ code: 'invalid_request', detail: 'the upload is not a readable zip file' });
    const empty = await importZip(owner.token, agentSkills.zipFolders([]));
    expect(empty.status).toBe(400);
  });
});

describe('CLI', () => {
  it('org skills export --to DIR then org skills import DIR restores the skills exactly', async () => {
    const out = capture();
    const dir = join(work, 'exported');
    expect(await runSkillsExport({ slugs: [], to: dir }, depsFor(t, owner.token, out))).toBe(0);
    expect(out.text()).toContain('skills exported to');
    expect((await readdir(dir)).sort()).toEqual(['chase-overdue-invoices', 'review-code']);
    expect(await readFile(join(dir, 'chase-overdue-invoices', 'scripts', 'aging.sh'), 'utf8')).toBe('#!/bin/sh\necho aging\n');

    const before = (await t.app.skills.get('chase-overdue-invoices', structure.id))!;
    await t.app.skills.remove('chase-overdue-invoices', { structureId: structure.id });
    out.clear();
    expect(await runSkillsImport({ dir }, depsFor(t, owner.token, out))).toBe(0);
    expect(out.text()).toMatch(/create\s+chase-overdue-invoices/);
    expect(out.text()).toMatch(/unchanged\s+review-code/);
    const after = (await t.app.skills.get('chase-overdue-invoices', structure.id))!;
    expect(after).toEqual(before);
  });

  it('a .claude/skills tree imports with its script files; links are skipped; --dry-run writes nothing', async () => {
    const tree = join(work, '.claude', 'skills');
    await mkdir(join(tree, 'pdf-forms', 'scripts'), { recursive: true });
    await writeFile(join(tree, 'pdf-forms', 'SKILL.md'), '---\nname: pdf-forms\ndescription: Fills PDF forms. Use when a PDF form is mentioned.\n---\n## Find the fields\nList them.\n\n## Fill them\nWrite values.\n');
    await writeFile(join(tree, 'pdf-forms', 'scripts', 'fill.py'), 'print("fill")\n');
    await symlink('/etc/passwd', join(tree, 'pdf-forms', 'scripts', 'passwd'));
    const out = capture();
    expect(await runSkillsImport({ dir: tree, dryRun: true }, depsFor(t, owner.token, out))).toBe(0);
    expect(out.text()).toMatch(/create\s+pdf-forms/);
    expect(await t.app.skills.get('pdf-forms', structure.id)).toBeUndefined();
    out.clear();
    expect(await runSkillsImport({ dir: tree }, depsFor(t, owner.token, out))).toBe(0);
    const stored = (await t.app.skills.get('pdf-forms', structure.id))!;
    expect(stored.steps.map((step) => step.title)).toEqual(['Find the fields', 'Fill them']);
    expect([...(await t.app.skills.files('pdf-forms', structure.id)).keys()]).toEqual(['scripts/fill.py']);
  });
});
