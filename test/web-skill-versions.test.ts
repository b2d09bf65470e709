/**
 * Skill versions in a real browser (chromium, the built UI, a listening server whose home
 * is a git repository and which commits skill writes): a skill page lists its versions; a
 * version is viewed rendered, compared with the current text, and restored as the next
 * version with If-Match; a change made meanwhile is refused and nothing is overwritten;
 * a viewer views and compares but is offered no restore, and a restore the server refuses
 * (the role was lowered meanwhile) says why and leaves the file as it was.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { browserProfiles, type BrowserProfiles, screenshot } from './helpers/browser.js';
import { GIT_MISSING, initRepo } from './helpers/git.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

/** Refusals the tests provoke on purpose: a stale If-Match (412) and a lowered role (403). */
const EXPECTED = [/status of 412/, /status of 403/];

describe.skipIf(GIT_MISSING !== undefined)('skill versions in the web UI', () => {
  let t: TestInstance;
  let profiles: BrowserProfiles;
  let owner: { token: string; id: string };
  let structureId = '';
  const file = () => join(t.home, 'skills', structureId, 'close-books.md');

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 8000 });
  const write = async (summary: string) => {
    const response = await fetch(`${t.url}/api/org/knowledge/skills`, {
      method: 'POST',
      headers: { ...t.auth(owner.token), 'content-type': 'application/json' },
      body: JSON.stringify({ structure_id: structureId, slug: 'close-books', frontmatter: { type: 'skill', name: 'Close the books', status: 'complete', summary }, body: `## [close] Step 1: Close\n\n${summary}\n` }),
    });
    expect(response.status).toBeLessThan(300);
  };
  const versions = async () =>
    ((await (await fetch(`${t.url}/api/org/knowledge/skills/close-books/versions?structure_id=${structureId}`, { headers: t.auth(owner.token) })).json()) as { versions: { id: string; message: string }[] }).versions;
  const signedIn = (token: string) => profiles.open({ url: t.url, token });

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true, config: { commit: true } });
    await initRepo(t.home);
    owner = await t.createUser('olivia@example.com');
    structureId = (await t.createStructure(owner.token, 'blank', 'Acme')).id;
    await write('Reconcile every account.');
    await write('Reconcile the bank accounts only.');
    profiles = await browserProfiles();
  }, 60_000);

  afterAll(async () => {
    await profiles?.close();
    await t?.close();
    expect(profiles.problems.filter((problem) => !EXPECTED.some((pattern) => pattern.test(problem.text)))).toEqual([]);
  });

  it('lists a skill’s versions, views one, compares it with the current text and restores it as the next version', async () => {
    const [, first] = await versions();
    const short = first!.id.slice(0, 8);
    const page = await signedIn(owner.token);
    await page.goto(`${t.url}/#/w/${structureId}/skills/s/close-books`);
    const panel = page.getByRole('region', { name: 'Versions' });
    await visible(panel.getByRole('link', { name: short, exact: true }));
    expect(await panel.locator('.version').count()).toBe(2);
    expect(await panel.locator('.version').nth(1).textContent()).toContain('skill close-books: create by olivia@example.com');

    await panel.getByRole('link', { name: short, exact: true }).click();
    await visible(page.getByRole('heading', { name: `Close the books · version ${short}` }));
    // The version beside the current one.
    const shown = page.getByRole('region', { name: 'This version' });
    const now = page.getByRole('region', { name: 'The current version' });
    await visible(now.getByText('Reconcile the bank accounts only.').first());
    expect(await shown.locator('.markdown').textContent()).toContain('Reconcile every account.');
    expect(await shown.textContent()).not.toContain('bank accounts');
    expect(await now.textContent()).not.toContain('every account');
    expect(await page.title()).toBe(`close-books at ${short} · org`);
    await screenshot(page, 'versions-01-view');

    await page.getByRole('button', { name: 'Compare with current' }).click();
    const diff = page.getByRole('region', { name: `Changes from version ${short} to the current version` });
    await visible(diff);
    expect(await diff.locator('.diff-del', { hasText: 'summary: Reconcile every account.' }).count()).toBe(1);
    expect(await diff.locator('.diff-add', { hasText: 'summary: Reconcile the bank accounts only.' }).count()).toBe(1);
    expect(await page.locator('.diff-legend').textContent()).toContain(`− 2 lines only in version ${short}`);
    await screenshot(page, 'versions-02-compare');

    await page.getByRole('button', { name: 'Restore this version' }).click();
    const dialog = page.getByRole('dialog', { name: `Restore close-books to ${short}?` });
    await visible(dialog);
    const sent = page.waitForRequest((request) => request.method() === 'POST' && request.url().includes('/versions/'));
    await dialog.getByRole('button', { name: 'Restore this version' }).click();
    expect((await sent).headers()['if-match']).toMatch(/^"[^"]+"$/);
    await visible(page.locator('.toast', { hasText: `Restored close-books to ${short}.` }));
    await visible(page.getByRole('heading', { name: 'Close the books', exact: true }));
    expect(await readFile(file(), 'utf8')).toContain('summary: Reconcile every account.');
    await visible(panel.getByText(`skill close-books: restore version ${first!.id.slice(0, 12)} by olivia@example.com`));
    await page.close();
  });

  it('refuses a restore when the skill changed after the version was opened, and compares again with what it is now', async () => {
    // The version before the restore: the current text is now the first one's.
    const [, oldest] = await versions();
    const short = oldest!.id.slice(0, 8);
    const page = await signedIn(owner.token);
    await page.goto(`${t.url}/#/w/${structureId}/skills/s/close-books/v/${oldest!.id}?compare`);
    await visible(page.getByRole('region', { name: `Changes from version ${short} to the current version` }));
    // Someone else changes the skill meanwhile.
    await write('Reconcile and sign off.');
    await page.getByRole('button', { name: 'Restore this version' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore this version' }).click();
    const note = page.locator('.notice-error', { hasText: 'changed since you opened this version, so nothing was restored' });
    await visible(note);
    // In the page's words: no ETag, no API phrasing.
    expect(await note.textContent()).not.toMatch(/"[A-Za-z0-9_-]{12,}"|read it again and redo/);
    expect(await readFile(file(), 'utf8')).toContain('summary: Reconcile and sign off.');
    await screenshot(page, 'versions-03-stale');
    await note.getByRole('button', { name: 'Compare with the version it is now' }).click();
    await visible(page.locator('.diff-add', { hasText: 'summary: Reconcile and sign off.' }));
    await page.close();
  });

  it('lets a viewer view and compare but offers no restore; a restore refused for a lowered role says why and changes nothing', async () => {
    // The first version: another text than the current one.
    const newest = (await versions()).at(-1);
    const viewer = await t.createUser('victor@example.com');
    await t.app.members.set(structureId, viewer.id, 'viewer');
    const page = await signedIn(viewer.token);
    await page.goto(`${t.url}/#/w/${structureId}/skills/s/close-books/v/${newest!.id}`);
    await visible(page.getByText('Your role in this workspace is viewer: you can view and compare versions; restoring one needs the operator or owner role.'));
    await page.getByRole('button', { name: 'Compare with current' }).click();
    await visible(page.locator('.diff'));
    expect(await page.getByRole('button', { name: 'Restore this version' }).count()).toBe(0);
    await page.close();

    // An operator opens a version; an owner lowers them to viewer before they restore it.
    const operator = await t.createUser('oscar@example.com');
    await t.app.members.set(structureId, operator.id, 'operator');
    const before = await readFile(file(), 'utf8');
    const second = await signedIn(operator.token);
    await second.goto(`${t.url}/#/w/${structureId}/skills/s/close-books/v/${newest!.id}`);
    await visible(second.getByRole('button', { name: 'Restore this version' }));
    await t.app.members.set(structureId, operator.id, 'viewer');
    await second.getByRole('button', { name: 'Restore this version' }).click();
    await second.getByRole('dialog').getByRole('button', { name: 'Restore this version' }).click();
    await visible(second.locator('.notice-error', { hasText: 'Your role in this workspace does not allow this.' }));
    await visible(second.getByText('Your role in this workspace is viewer'));
    expect(await second.getByRole('button', { name: 'Restore this version' }).count()).toBe(0);
    expect(await readFile(file(), 'utf8')).toBe(before);
    await screenshot(second, 'versions-04-refused');
    await second.close();
  });
});
