/**
 * Temp files left by a kill are removed at start-up and never indexed (issue 10, item
 * 9). A process killed between an atomic write's temp file and its rename leaves
 * `<file>.<n>` behind: in the git-tracked skills folder, on artifact shelves, beside
 * `artifacts.json`, the state documents, the index and the outbox. Users' own files that
 * merely look alike (a listed artifact `data.json.1`, `skills/backup.txt.1`) are kept.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { resolveConfig } from '../src/core/config.js';
import type { SkillChangeEvent } from '../src/core/skills/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const SKILL = (name: string) => ['---', 'type: skill', `name: ${name}`, 'status: complete', 'summary: zanzibar', '---', 'Body.', ''].join('\n');

describe('temp files of interrupted writes', () => {
  let home: string;
  let t: TestInstance;
  let structureId: string;
  let nodeDir: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-sweep-'));
    // A first run leaves a structure, a node with a listed artifact named like a temp, and a skill.
    const first = await startInstance({ home });
    structureId = (await first.createStructure(first.auth().authorization.slice(7), 'blank')).id;
    await first.app.nodes.add(structureId, { role_id: 'team-a', label: 'A' }, 'test');
    nodeDir = first.app.nodes.dir(structureId, first.app.nodes.get(structureId, 'team-a').id);
    await first.app.chat.shelfOf(structureId, first.app.nodes.get(structureId, 'team-a').id).write('data.json.1', 'a user file', 'application/json');
    await writeFile(join(home, 'skills', 'chase.md'), SKILL('Chase'));
    await first.close();

    // What a kill at the wrong moment leaves behind.
    const leftovers = [
      join(home, 'skills', 'chase.md.2417754183'),
      join(home, 'skills', 'new-skill.md.99'),
      join(nodeDir, 'artifacts', 'report.md.3141592653'),
      join(nodeDir, 'artifacts', 'data.json.1.77'),
      join(nodeDir, 'artifacts.json.1234567'),
      join(home, '.org', 'users.json.5'),
      join(home, '.org', 'structures', structureId, 'structure.json.6'),
      join(home, '.org', 'index', 'skills.jsonl.8'),
      join(home, '.org', 'outbox', '2026-01-01T00-00-00-000Z--x@y.eml.9'),
    ];
    for (const file of leftovers) await writeFile(file, file.includes('skills') ? SKILL('Half written') : '{"half":');
    await writeFile(join(home, 'skills', 'backup.txt.1'), 'the user keeps this');
    t = await startInstance({ home });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await rm(home, { recursive: true, force: true });
  });

  it('start-up removed every leftover temp file and kept look-alike user files', async () => {
    // The start-up index save, made after ready, is finished too.
    await t.app.skills.settle();
    expect((await readdir(join(home, 'skills'))).sort()).toEqual(['backup.txt.1', 'chase.md']);
    expect((await readdir(join(nodeDir, 'artifacts'))).sort()).toEqual(['data.json.1']);
    expect((await readdir(nodeDir)).filter((name) => name.startsWith('artifacts'))).toEqual(['artifacts', 'artifacts.json']);
    const all = await readdir(join(home, '.org'), { recursive: true });
    expect(all.filter((name) => /\.\d+$/.test(name)).map((name) => name.split('/').pop())).toEqual(['data.json.1']);
    const listed = await t.server.inject({ method: 'GET', url: `/api/org/structures/${structureId}/agents/team-a/artifacts`, headers: t.auth() });
    expect(listed.json<{ artifacts: { name: string }[] }>().artifacts.map((a) => a.name)).toEqual(['data.json.1']);
  });

  it('temp files never reach the catalog: not at load, not through the watcher', async () => {
    expect(t.app.skills.list().map((entry) => entry.slug)).toEqual(['chase']);
    expect(t.app.skills.problems()).toEqual([]);
    const events: SkillChangeEvent[] = [];
    const marker = new Promise<void>((resolve) => {
      const stop = t.app.skills.subscribe((event) => {
        events.push(event);
        if (event.type === 'upsert' && event.slug === 'marker') {
          stop();
          resolve();
        }
      });
    });
    // A temp file appears (an editor or a write in progress), then a real skill after it.
    await writeFile(join(home, 'skills', 'late.md.2718281828'), SKILL('Late temp'));
    await writeFile(join(home, 'skills', 'marker.md'), SKILL('Marker'));
    await marker;
    expect(events).toEqual([{ type: 'upsert', slug: 'marker', created: true, source: 'watcher' }]);
    expect(t.app.skills.list().map((entry) => entry.slug)).toEqual(['chase', 'marker']);
    expect(t.app.skills.problems()).toEqual([]);
  });
});

describe('an index save cut short by a kill (issue 10, item 12)', () => {
  it('leaves a temp file that the next start removes, and the saved index is still used', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-ready-'));
    try {
      await mkdir(join(home, 'skills'), { recursive: true });
      for (let i = 0; i < 300; i++) await writeFile(join(home, 'skills', `skill-${i}.md`), SKILL(`Skill ${i}`));
      const config = resolveConfig({ home, port: 0, demo: false }, { ORG_ADMIN_TOKEN: 'test-admin-token-0123456789abcdef', ORG_CONFIG_DIR: join(home, 'config') });
      const first = await createApp(config, { log: () => undefined });
      await first.skills.ready();
      // The start-up save comes after ready (off the path to the first search); settling waits for it.
      await first.skills.settle();
      expect(await readdir(join(home, '.org', 'index'))).toEqual(['skills.jsonl']);
      await first.close();
      // What a kill between the save's temp file and its rename leaves.
      const saved = await readFile(join(home, '.org', 'index', 'skills.jsonl'));
      await writeFile(join(home, '.org', 'index', 'skills.jsonl.2417754183'), saved.subarray(0, saved.length >> 1));

      const again = await createApp(config, { log: () => undefined });
      await again.skills.ready();
      const index = await readdir(join(home, '.org', 'index'));
      const report = again.skills.loadReport;
      await again.close();
      expect(index).toEqual(['skills.jsonl']);
      expect(report).toMatchObject({ snapshot: 'used', reused: 300, read: 0 });
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

