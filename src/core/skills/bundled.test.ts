/**
 * The bundled library (skills/): every file is valid by the one validator, and no skill
 * calls a tool server that is not there (a tool_url on a loopback port nobody serves is
 * what made the first demo print ECONNREFUSED). Seeding copies it into a new home only.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { seedBundledSkills } from './bundled.js';
import { checkSkillText } from './check.js';

const BUNDLED = fileURLToPath(new URL('../../../skills', import.meta.url));
const DEFAULTS = { learned_by: 'user', learned_at: '2026-01-01T00:00:00.000Z', category: 'general', difficulty: 'medium' } as const;

describe('the bundled skills', () => {
  it('are all valid and call no tool server that does not exist', async () => {
    const names = (await readdir(BUNDLED)).filter((name) => name.endsWith('.md'));
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      const result = checkSkillText(name.slice(0, -3), await readFile(join(BUNDLED, name), 'utf8'), DEFAULTS);
      expect(result.issues.filter((issue) => issue.severity === 'error'), name).toEqual([]);
      expect(result.skill?.frontmatter.tool_url, `${name}: a tool_url needs a tool server that ships with org`).toBeNull();
    }
  });

  it('seed a new home, never an existing library', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-seed-'));
    const seeded = await seedBundledSkills(join(home, 'skills'), BUNDLED);
    expect(seeded.copied.length).toBe((await readdir(BUNDLED)).filter((name) => name.endsWith('.md')).length);
    await writeFile(join(home, 'skills', 'triage-production-incident.md'), 'mine');
    expect(await seedBundledSkills(join(home, 'skills'), BUNDLED)).toEqual({ copied: [], skipped: 'exists' });
    expect(await readFile(join(home, 'skills', 'triage-production-incident.md'), 'utf8')).toBe('mine');
    expect(await seedBundledSkills(BUNDLED, BUNDLED)).toEqual({ copied: [], skipped: 'same-folder' });
  });
});
