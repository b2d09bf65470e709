/**
 * `learned_at` of a hand-written skill (issue 31.12): a file that does not say when its
 * skill was learned reports no `learned_at`, in the list, the full record and the MCP
 * tools alike, and saving it again changes nothing (it used to be the file's
 * modification time, new on every save). A file that says keeps what it says.
 */
import { mkdir, mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { nextChange, skillText } from './helpers/skills.js';

const HAND_WRITTEN = skillText(['type: skill', 'name: Water the ferns', 'status: complete', 'tags: [plants]'], '## [water] Step 1: Water them\n\nA cup each.\n');

describe('learned_at of a hand-written skill', () => {
  let t: TestInstance;
  let structureId: string;
  beforeAll(async () => {
    const home = join(await mkdtemp(join(tmpdir(), 'org-learned-at-')), 'home');
    await mkdir(join(home, 'skills'), { recursive: true });
    await writeFile(join(home, 'skills', 'water-the-ferns.md'), HAND_WRITTEN);
    await writeFile(join(home, 'skills', 'dated.md'), skillText(['type: skill', 'name: Dated', 'status: complete', 'learned_at: 2025-03-04T05:06:07Z']));
    t = await startInstance({ home });
    structureId = (await t.createStructure(ADMIN_TOKEN, 'blank', 'Ferns')).id;
  });
  afterAll(() => t.close());

  const listed = async (slug: string) => {
    const response = await t.server.inject({ method: 'GET', url: `/api/org/knowledge/skills?structure_id=${structureId}`, headers: t.auth() });
    return response.json<{ skills: Record<string, unknown>[] }>().skills.find((skill) => skill.slug === slug);
  };
  const full = async (slug: string) => (await t.server.inject({ method: 'GET', url: `/api/org/knowledge/skills/${slug}`, headers: t.auth() })).json<{ frontmatter: Record<string, unknown> }>();

  it('is absent when the file does not say, and stays absent when the file is saved again', async () => {
    expect(await listed('water-the-ferns')).not.toHaveProperty('learned_at');
    expect((await full('water-the-ferns')).frontmatter).not.toHaveProperty('learned_at');

    const saved = nextChange(t.app.skills, (event) => event.type === 'upsert' && event.slug === 'water-the-ferns', 'the save of water-the-ferns');
    await writeFile(join(t.home, 'skills', 'water-the-ferns.md'), HAND_WRITTEN.replace('A cup each.', 'A cup each, in the morning.'));
    await utimes(join(t.home, 'skills', 'water-the-ferns.md'), new Date('2030-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z'));
    await saved;
    await t.app.skills.settle();
    expect((await full('water-the-ferns')).frontmatter).not.toHaveProperty('learned_at');
    expect(await listed('water-the-ferns')).not.toHaveProperty('learned_at');
  });

  it('is what the file says when it says', async () => {
    expect(await listed('dated')).toMatchObject({ learned_at: '2025-03-04T05:06:07.000Z' });
  });
});
