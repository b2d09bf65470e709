import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkillStore, type SkillStore } from '../store.js';
import { tempHome, type TempHome } from '../../../../test/helpers/skills.js';
import { exportFolder, importFolders } from '../transfer.js';
import { SKILL_DIFFICULTIES, SKILL_LEARNERS, SKILL_STATUSES } from '../types.js';
import { SPLIT_LINES, STEPS_DIR } from './body-split.js';
import { describeSkill, toAgentSkill } from './export.js';
import { fromAgentSkill } from './import.js';
import { stepsFromMarkdown } from './steps.js';
import { SKILL_FILE, type SkillFolder } from './types.js';
import { validateAgentSkill } from './validate.js';
import { groupFolders, unzipFolders, zipFolders } from './zip.js';
import matter from 'gray-matter';

const enc = (text: string) => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
const skillMd = (folder: SkillFolder) => matter(dec(folder.files.get(SKILL_FILE)), {});

let home: TempHome;
let source: SkillStore;
let target: SkillStore;
beforeAll(async () => {
  home = await tempHome();
  source = await createSkillStore({ root: `${home.root}-a`, stateDir: `${home.stateDir}-a`, synonyms: false, persistIndex: false });
  target = await createSkillStore({ root: `${home.root}-b`, stateDir: `${home.stateDir}-b`, synonyms: false, persistIndex: false });
});
afterAll(async () => {
  await source.close();
  await target.close();
  await home.cleanup();
});

describe('the Agent Skills reference rules', () => {
  it.each([
    [{ name: 'pdf-tools', description: 'Fill PDF forms. Use when a PDF is mentioned.' }, 'pdf-tools', []],
    [{ name: 'PDF', description: 'x' }, 'PDF', ['lowercase']],
    [{ name: '-pdf', description: 'x' }, '-pdf', ['lowercase letters']],
    [{ name: 'pdf--x', description: 'x' }, 'pdf--x', ['single hyphens']],
    [{ name: 'a'.repeat(65), description: 'x' }, 'a'.repeat(65), ['longer than 64']],
    [{ name: 'pdf', description: 'x' }, 'other', ['folder name']],
    [{ name: 'pdf', description: '' }, 'pdf', ['description must be 1 to 1024']],
    [{ name: 'pdf', description: 'd'.repeat(1025) }, 'pdf', ['description must be 1 to 1024']],
    [{ name: 'pdf', description: 'x', version: 2 }, 'pdf', ['unexpected front matter fields: version']],
    [{ name: 'pdf', description: 'x', metadata: { a: 1 } }, 'pdf', ['metadata.a must be a string']],
    [{ name: 'pdf', description: 'x', compatibility: 'c'.repeat(501) }, 'pdf', ['compatibility must be 1 to 500']],
  ])('%j in folder %s', (frontmatter, folder, expected) => {
    const problems = validateAgentSkill(frontmatter, folder);
    if (expected.length === 0) expect(problems).toEqual([]);
    for (const fragment of expected) expect(problems.join('\n')).toContain(fragment);
  });
});

describe('export', () => {
  it('writes a valid SKILL.md: name = slug = folder, description from summary and triggers, org members in metadata, steps as they are', async () => {
    const body = '## [pull] Step 1: Pull the aging report\n- Group by age.\n\n## [remind] Step 2: Send reminders\n';
    await source.upsert({
      slug: 'chase-invoices',
      frontmatter: { type: 'skill', name: 'Chase invoices', status: 'complete', summary: 'Collect overdue payments', tags: ['ar'], triggers: ['a customer pays late', 'invoices are overdue'] },
      body,
    });
    await source.putFiles('chase-invoices', new Map([['scripts/aging.sh', enc('#!/bin/sh\necho aging\n')]]));
    const folder = (await exportFolder(source, 'chase-invoices'))!;
    expect(folder.name).toBe('chase-invoices');
    expect([...folder.files.keys()]).toEqual(['SKILL.md', 'scripts/aging.sh']);
    const parsed = skillMd(folder);
    expect(validateAgentSkill(parsed.data, folder.name)).toEqual([]);
    expect(parsed.data.description).toBe('Collect overdue payments. Use when: a customer pays late; invoices are overdue.');
    expect(parsed.data.metadata).toMatchObject({ 'org.name': 'Chase invoices', 'org.status': 'complete', 'org.tags:json': '["ar"]', 'org.tool_url:json': 'null' });
    expect(parsed.content).toContain(body);
  });

  it('clips a long description to 1,024 characters', () => {
    const description = describeSkill({ name: 'x', summary: 'word '.repeat(400) });
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(description.endsWith('…')).toBe(true);
  });

  it('moves the step text of a long body to references/steps and keeps every heading in SKILL.md', async () => {
    const step = (n: number) => `## [s${n}] Step ${n}: Part ${n}\n${'detail line\n'.repeat(SPLIT_LINES / 2)}`;
    const body = `Intro.\n\n${step(1)}\n${step(2)}`;
    const { skill } = await source.upsert({ slug: 'long-one', frontmatter: { type: 'skill', name: 'Long', status: 'draft' }, body });
    const folder = toAgentSkill(skill);
    const md = skillMd(folder);
    expect(md.content.split('\n').length).toBeLessThan(20);
    expect(md.content).toContain('## [s1] Step 1: Part 1');
    expect(md.content).toContain('## [s2] Step 2: Part 2');
    expect([...folder.files.keys()].filter((path) => path.startsWith(STEPS_DIR))).toHaveLength(2);
    const back = fromAgentSkill(folder);
    expect('skill' in back && back.skill.body).toBe(skill.body);
    expect('skill' in back && [...back.skill.files.keys()]).toEqual([]);
  });
});

describe('import of foreign skills', () => {
  it('numbered lists become steps; scripts are kept as files; foreign fields survive the next export', async () => {
    const folder: SkillFolder = {
      name: 'deploy-app',
      files: new Map([
        ['SKILL.md', enc('---\nname: deploy-app\ndescription: Deploys the app. Use when asked to ship.\nlicense: MIT\nallowed-tools: Bash\nversion: 3\n---\n# Deploy the app\n\n1. Build the image\n   with the release tag\n2. Push it\n3. Roll out\n')],
        ['scripts/deploy.sh', enc('#!/bin/sh\nexit 1\n')],
        ['assets/logo.png', new Uint8Array([137, 80, 78, 71, 0, 255])],
      ]),
    };
    const report = await importFolders(target, [folder], { dryRun: false });
    expect(report.skills).toEqual([expect.objectContaining({ slug: 'deploy-app', origin: 'foreign', action: 'create', status: 'draft', files: ['scripts/deploy.sh', 'assets/logo.png'] })]);
    const stored = (await target.get('deploy-app'))!;
    expect(stored.frontmatter).toMatchObject({ name: 'Deploy the app', status: 'draft', summary: 'Deploys the app. Use when asked to ship.' });
    expect(stored.steps.map((step) => step.title)).toEqual(['Build the image', 'Push it', 'Roll out']);
    expect(stored.body).toContain('with the release tag');
    const again = (await exportFolder(target, 'deploy-app'))!;
    expect([...again.files.keys()].sort()).toEqual(['SKILL.md', 'assets/logo.png', 'scripts/deploy.sh']);
    expect(again.files.get('assets/logo.png')).toEqual(folder.files.get('assets/logo.png'));
    const md = skillMd(again);
    expect(md.data).toMatchObject({ name: 'deploy-app', license: 'MIT', 'allowed-tools': 'Bash' });
    expect(md.data.metadata.version).toBe('3');
    expect(validateAgentSkill(md.data, 'deploy-app')).toEqual([]);
  });

  it('sections become steps; a body with org steps is kept', () => {
    expect(stepsFromMarkdown('Intro\n\n## Prepare\nA\n\n## Prepare\nB\n')).toBe('Intro\n\n## [prepare] Step 1: Prepare\nA\n\n## [prepare-2] Step 2: Prepare\nB\n');
    const org = '## [a] Step 1: One\n';
    expect(stepsFromMarkdown(org)).toBe(org);
  });

  it('a dry run writes nothing; a folder without SKILL.md is skipped with a reason', async () => {
    const report = await importFolders(target, [{ name: 'dry-one', files: new Map([['SKILL.md', enc('---\nname: dry-one\ndescription: d\n---\nx\n')]]) }, { name: 'empty', files: new Map([['README.md', enc('x')]]) }], { dryRun: true });
    expect(report.skills.map((entry) => [entry.slug, entry.action])).toEqual([['dry-one', 'create'], ['empty', 'skip']]);
    expect(report.skills[1]!.problem).toContain('no SKILL.md');
    expect(await target.get('dry-one')).toBeUndefined();
  });
});

describe('zip', () => {
  it('finds skill folders anywhere in a zip and refuses unsafe paths', async () => {
    const grouped = groupFolders(
      new Map([
        ['.claude/skills/a/SKILL.md', enc('a')],
        ['.claude/skills/a/scripts/x.sh', enc('x')],
        ['b/SKILL.md', enc('b')],
        ['../evil', enc('e')],
        ['loose.txt', enc('l')],
      ]),
    );
    expect(grouped.folders.map((folder) => [folder.name, [...folder.files.keys()]])).toEqual([
      ['a', ['SKILL.md', 'scripts/x.sh']],
      ['b', ['SKILL.md']],
    ]);
    expect(grouped.problems.map((problem) => problem.path)).toEqual(['../evil', 'loose.txt']);
    const zipped = zipFolders(grouped.folders);
    expect((await unzipFolders(zipped)).folders).toEqual(grouped.folders);
    await expect(unzipFolders(enc('not a zip'))).rejects.toThrow(/not a readable zip/);
    await expect(unzipFolders(zipped, { maxEntries: 1, maxFileBytes: 10, maxTotalBytes: 100 })).rejects.toThrow(/more than 1 files/);
  });
});

const slug = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/);
const text = fc.string({ maxLength: 40, unit: 'grapheme' });
const iso = fc.date({ min: new Date('2000-01-01T00:00:00.000Z'), max: new Date('2099-12-31T23:59:59.999Z'), noInvalidDate: true }).map((d) => d.toISOString());
const skillArb = fc.record({
  slug,
  frontmatter: fc.record({
    type: fc.constant('skill'),
    name: text.filter((s) => s.trim() !== '' && s.length <= 200),
    category: text,
    difficulty: fc.constantFrom(...SKILL_DIFFICULTIES),
    tags: fc.array(text, { maxLength: 4 }),
    status: fc.constantFrom(...SKILL_STATUSES),
    summary: text,
    learned_by: fc.constantFrom(...SKILL_LEARNERS),
    learned_at: iso,
    tool_url: fc.option(fc.webUrl(), { nil: null }),
    // A trigger is a non-empty example request (the skill validator refuses blank ones).
    triggers: fc.option(fc.array(text.filter((value) => value.trim().length > 0 && value.trim() === value), { maxLength: 3 }), { nil: undefined }),
    x_extra: fc.option(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 3 }), { nil: undefined }),
  }),
  // Step ids are unique in a valid skill (a duplicate is refused): number each heading.
  body: fc
    .array(fc.oneof(fc.string({ maxLength: 60, unit: 'grapheme' }), fc.constantFrom('## [a] Step 1: One', '1. first', '---', '```', '# T', '')), { maxLength: 8 })
    .map((lines) => {
      let step = 0;
      return lines.map((line) => (line === '## [a] Step 1: One' ? `## [s${++step}] Step ${step}: One` : line)).join('\n');
    }),
  files: fc.dictionary(fc.stringMatching(/^(scripts|references|assets)\/[a-z0-9]{1,8}\.(sh|md|bin)$/), fc.uint8Array({ maxLength: 64 }), { maxKeys: 3 }),
});

describe('round trip', () => {
  it('export then import is the identity on org skills (front matter, body, files), and every export passes the reference rules', async () => {
    await fc.assert(
      fc.asyncProperty(skillArb, async (input) => {
        await source.remove(input.slug).catch(() => undefined);
        await target.remove(input.slug).catch(() => undefined);
        const { skill } = await source.upsert({ slug: input.slug, frontmatter: input.frontmatter, body: input.body });
        const files = new Map(Object.entries(input.files));
        await source.putFiles(input.slug, files);
        const folder = (await exportFolder(source, input.slug))!;
        expect(validateAgentSkill(skillMd(folder).data, folder.name)).toEqual([]);
        const zipped = await unzipFolders(zipFolders([folder]));
        const report = await importFolders(target, zipped.folders, { dryRun: false });
        expect(report.skills[0]).toMatchObject({ slug: input.slug, origin: 'org' });
        const back = (await target.get(input.slug))!;
        expect(back.frontmatter).toEqual(skill.frontmatter);
        expect(back.body).toBe(skill.body);
        expect(await target.files(input.slug)).toEqual(new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))));
        const again = await importFolders(target, zipped.folders, { dryRun: true });
        expect(again.skills[0]!.action).toBe('unchanged');
      }),
      { numRuns: 60 },
    );
  });
});
