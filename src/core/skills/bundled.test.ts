/**
 * The bundled library (skills/): every file is valid by the one validator, and no skill
 * calls a tool server that is not there (a tool_url on a loopback port nobody serves is
 * what made the first demo print ECONNREFUSED). Seeding copies it into a new home only,
 * and what it copies is what the package ships (what git tracks), never a file that a
 * server or a person left in the package's skills/ folder.
 */
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { git, initRepo, requireGit } from '../../../test/helpers/git.js';
import { listShippedSkills, seedBundledSkills, shippedSkills, writeBundledManifest } from './bundled.js';
import { checkSkillText } from './check.js';

const PACKAGE = fileURLToPath(new URL('../../..', import.meta.url));
const DEFAULTS = { learned_by: 'user', learned_at: '2026-01-01T00:00:00.000Z', category: 'general', difficulty: 'medium' } as const;

const skill = (name: string) => `---\ntype: skill\nname: ${name}\nstatus: complete\n---\n## [a] Step 1: Do it\nDo it.\n`;

/** A package folder with two committed skills, a git work tree of its own. */
async function fakePackage(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'org-package-'));
  await initRepo(dir);
  await mkdir(join(dir, 'skills'));
  await writeFile(join(dir, 'skills', 'alpha.md'), skill('Alpha'));
  await writeFile(join(dir, 'skills', 'beta.md'), skill('Beta'));
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'skills');
  return dir;
}

describe('the bundled skills', () => {
  it('are all valid and call no tool server that does not exist', async () => {
    const skills = await listShippedSkills(PACKAGE);
    expect(skills.length).toBeGreaterThan(20);
    for (const { name, text } of skills) {
      const result = checkSkillText(name.slice(0, -3), text, DEFAULTS);
      expect(result.issues.filter((issue) => issue.severity === 'error'), name).toEqual([]);
      expect(result.skill?.frontmatter.tool_url, `${name}: a tool_url needs a tool server that ships with org`).toBeNull();
    }
  });

  it('seed a new home, never an existing library', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-seed-'));
    const bundled = [
      { name: 'alpha.md', text: skill('Alpha') },
      { name: 'triage-production-incident.md', text: skill('Triage') },
    ];
    expect(await seedBundledSkills(join(home, 'skills'), bundled)).toEqual({ copied: ['alpha', 'triage-production-incident'] });
    expect((await readdir(join(home, 'skills'))).sort()).toEqual(['alpha.md', 'triage-production-incident.md']);
    await writeFile(join(home, 'skills', 'triage-production-incident.md'), 'mine');
    expect(await seedBundledSkills(join(home, 'skills'), bundled)).toEqual({ copied: [], skipped: 'exists' });
    // Forced (org init on a folder without skills): never over a file that is there.
    expect(await seedBundledSkills(join(home, 'skills'), bundled, { force: true })).toEqual({ copied: [] });
    expect(await readFile(join(home, 'skills', 'triage-production-incident.md'), 'utf8')).toBe('mine');
  });

  it('are what the package ships: a draft, an API write or a broken edit left in its skills/ is never copied', async (context) => {
    requireGit(context);
    const dir = await fakePackage();
    // What a server running on the package folder leaves behind.
    await writeFile(join(dir, 'skills', 'water-the-office-plants.md'), skill('Water the office plants').replace('complete', 'draft'));
    await writeFile(join(dir, 'skills', 'broken.md'), '---\nname: [unclosed\n---\n');
    await writeFile(join(dir, 'skills', 'alpha.md'), 'an edit through the API that broke it');

    const listed = await listShippedSkills(dir);
    expect(listed).toEqual([
      { name: 'alpha.md', text: skill('Alpha') },
      { name: 'beta.md', text: skill('Beta') },
    ]);

    // The build writes the list; a new home gets exactly it, whatever the folder holds later.
    await writeBundledManifest(dir);
    await writeFile(join(dir, 'skills', 'gamma.md'), skill('Gamma'));
    expect(await shippedSkills(dir)).toEqual(listed);
    const home = await mkdtemp(join(tmpdir(), 'org-seed-'));
    expect(await seedBundledSkills(join(home, 'skills'), await shippedSkills(dir))).toEqual({ copied: ['alpha', 'beta'] });
    expect(await readFile(join(home, 'skills', 'alpha.md'), 'utf8')).toBe(skill('Alpha'));
  });

  it('of a package that is no git checkout are the files of its skills/', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-tarball-'));
    await mkdir(join(dir, 'skills'));
    await writeFile(join(dir, 'skills', 'alpha.md'), skill('Alpha'));
    await writeFile(join(dir, 'skills', '.template.md'), 'not a skill');
    expect(await shippedSkills(dir)).toEqual([{ name: 'alpha.md', text: skill('Alpha') }]);
  });
});
