/**
 * `org serve` listens before its skill library is loaded (issue 12): the listening line
 * comes first, knowledge requests sent meanwhile wait for the library instead of
 * answering empty, and the server says when the library is ready.
 */
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeChild } from './helpers/child.js';

const ADMIN = 'test-admin-token-0123456789abcdef';
const SKILL = (name: string, summary: string) => ['---', 'type: skill', `name: ${name}`, 'status: complete', `summary: ${summary}`, '---', '## [a] Step 1: Do it', '', 'Do it.', ''].join('\n');

describe('org serve start-up', () => {
  let home: string;
  let child: ServeChild;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-serve-start-'));
    await mkdir(join(home, 'skills'), { recursive: true });
    for (let i = 0; i < 400; i++) await writeFile(join(home, 'skills', `skill-${i}.md`), SKILL(`Skill ${i}`, `Routine number ${i}`));
    await writeFile(join(home, 'skills', 'chase-invoices.md'), SKILL('Chase invoices', 'Remind customers who pay late'));
  });
  afterAll(async () => {
    await child?.stop('SIGTERM');
    await rm(home, { recursive: true, force: true });
  });

  it('prints the listening line first; a search sent at once waits for the library and finds the skill', async () => {
    child = await startServe({ home, args: ['--no-demo'], env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg') } });
    // Sent right after the listening line, whether or not the library is loaded yet.
    const searched = fetch(`${child.url}/api/org/knowledge/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'customers who pay late' }),
    });
    const response = await searched;
    expect(response.status).toBe(200);
    const { matches } = (await response.json()) as { matches: { slug: string }[] };
    expect(matches[0]?.slug).toBe('chase-invoices');

    await child.ready;
    const listening = child.stdout.findIndex((line) => line.startsWith('org: listening on '));
    const ready = child.stdout.findIndex((line) => line.startsWith('org: skill library ready'));
    expect(listening).toBe(0);
    expect(ready).toBeGreaterThan(listening);
    expect(child.stdout[ready]).toMatch(/\(\d+ skills\)$/);
    const health = (await (await fetch(`${child.url}/api/org/health`)).json()) as { skills_index: string; skills: number };
    expect(health.skills_index).toBe('ready');
    expect(health.skills).toBeGreaterThanOrEqual(401);
  });

  it('a warm start sees a file edited while the server was down, and reads only that file', async () => {
    await child.stop('SIGTERM');
    // Same size as before, so only the mtime tells.
    await writeFile(join(home, 'skills', 'chase-invoices.md'), SKILL('Chase invoices', 'Remind customers who pay soon'));
    const later = new Date(Date.now() + 5_000);
    await utimes(join(home, 'skills', 'chase-invoices.md'), later, later);
    child = await startServe({ home, args: ['--no-demo'], env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), ORG_LOG_LEVEL: 'info' } });
    await child.ready;
    const search = async (query: string) => {
      const response = await fetch(`${child.url}/api/org/knowledge/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return ((await response.json()) as { matches: { slug: string }[] }).matches.map((match) => match.slug);
    };
    expect((await search('customers who pay soon'))[0]).toBe('chase-invoices');
    // The load compared the snapshot's signatures with the files and read only the edited one.
    const loaded = child.stderr().split('\n').find((line) => line.includes('"msg":"skills loaded"'));
    expect(JSON.parse(loaded ?? '{}')).toMatchObject({ snapshot: 'used', read: 1, reused: 400 });
  });
});
