/**
 * The deferred library load of `org serve`: with `deferSkillLoad`, the instance listens and
 * answers while its skill library has not even started loading (no file read, no index
 * snapshot written), says so in health, holds knowledge requests until the load, and
 * loads once `startSkillLoad` is called. Closing an instance whose load never started
 * does not wait for it.
 */
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshotPath } from '../src/core/skills/index.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { writeSkillFile } from './helpers/skills.js';

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

let home: string;
let t: TestInstance | undefined;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'org-deferred-'));
  await mkdir(join(home, 'skills'), { recursive: true });
  await writeSkillFile(join(home, 'skills'), 'chase-invoices', 'Chase late invoices');
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  await rm(home, { recursive: true, force: true });
});

describe('a skill library loaded only once the server listens', () => {
  it('has not started before startSkillLoad: health says loading, a search waits, then answers from the loaded library', async () => {
    t = await startInstance({ home, listen: true, waitForSkills: false, deps: { deferSkillLoad: true } });
    const stateDir = join(home, '.org');
    expect(t.app.skills.isReady()).toBe(false);
    const health = await fetch(`${t.url}/api/org/health`);
    expect(((await health.json()) as { skills_index: string }).skills_index).toBe('loading');
    // Nothing of the library was read: the index snapshot a load writes is not there.
    expect(await exists(snapshotPath(stateDir))).toBe(false);

    // A knowledge search sent now waits for the library instead of answering empty.
    const searching = fetch(`${t.url}/api/org/knowledge/search`, {
      method: 'POST',
      headers: { ...t.auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'late invoices' }),
    });
    t.app.startSkillLoad();
    const response = await searching;
    expect(response.status).toBe(200);
    const body = (await response.json()) as { matches: { slug: string }[] };
    expect(body.matches.map((match) => match.slug)).toContain('chase-invoices');
    expect(t.app.skills.isReady()).toBe(true);
    // The load's snapshot save comes after ready; settling waits for it.
    await t.app.skills.settle();
    expect(await exists(snapshotPath(stateDir))).toBe(true);
    // Starting it again changes nothing.
    t.app.startSkillLoad();
    expect(t.app.skillCount()).toBe(1);
  });

  it('closes an instance whose load never started, without loading it', async () => {
    t = await startInstance({ home, listen: true, waitForSkills: false, deps: { deferSkillLoad: true } });
    const closing = t;
    t = undefined;
    await closing.close();
    await expect(closing.app.skills.ready()).rejects.toThrow(/closed before its skill library was loaded/);
    expect(await exists(snapshotPath(join(home, '.org')))).toBe(false);
  });

  it('loads at once without deferSkillLoad (every other caller of createApp)', async () => {
    t = await startInstance({ home, waitForSkills: false });
    await t.app.skills.ready();
    expect(t.app.skillCount()).toBe(1);
  });
});
