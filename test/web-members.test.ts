/**
 * Members in a real browser (chromium, the built UI, a listening server): an owner
 * changes a member's role (with Undo), removes a member after confirming, and cancels a
 * pending invite; each change is checked on the server (the revoked invite's token
 * answering 410 is covered by the HTTP tests of the invite routes).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, openSignedIn, screenshot, type BrowserProblem } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';


interface MembersBody {
  members: { user_id: string; email: string; role: string }[];
  invites: { id: string; email: string; status: string }[];
}

describe('members of a workspace', () => {
  let t: TestInstance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let owner: { token: string; id: string };
  let bob: { token: string; id: string };
  let carol: { token: string; id: string };
  let structureId = '';

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });
  const members = async (): Promise<MembersBody> => {
    const response = await fetch(`${t.url}/api/org/structures/${structureId}/members`, { headers: t.auth(owner.token) });
    return (await response.json()) as MembersBody;
  };
  const roleOf = async (email: string) => (await members()).members.find((member) => member.email === email)?.role;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    owner = await t.createUser('owner@example.com');
    bob = await t.createUser('bob@example.com');
    carol = await t.createUser('carol@example.com');
    structureId = (await t.createStructure(owner.token, 'personal', 'Shared')).id;
    await t.app.members.set(structureId, bob.id, 'viewer');
    await t.app.members.set(structureId, carol.id, 'operator');
    const shared = await fetch(`${t.url}/api/org/structures/${structureId}/share`, {
      method: 'POST',
      headers: { ...t.auth(owner.token), 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'dave@example.com', role: 'viewer' }),
    });
    expect(shared.status).toBe(200);
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1280, height: 800 } }));
    await openSignedIn(page, t.url, owner.token);
    await page.goto(`${t.url}/#/w/${structureId}/access`);
    await visible(page.getByRole('combobox', { name: 'Role of bob@example.com' }));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('changes a member’s role, and Undo puts the old one back', async () => {
    const role = page.getByRole('combobox', { name: 'Role of bob@example.com' });
    await role.selectOption('operator');
    const toast = page.locator('.toast', { hasText: 'bob@example.com is now operator.' });
    await visible(toast);
    expect(await roleOf('bob@example.com')).toBe('operator');
    await screenshot(page, 'members-01-role');
    await toast.getByRole('button', { name: 'Undo' }).click();
    // Undo's answer is the select showing the old role again; the server holds it by then.
    await page.getByRole('combobox', { name: 'Role of bob@example.com' }).and(page.locator('select:has(option[value="viewer"]:checked)')).waitFor({ timeout: 0 });
    expect(await roleOf('bob@example.com')).toBe('viewer');
  });

  it('removes a member after confirming; they lose access', async () => {
    await page.getByRole('button', { name: 'Remove carol@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove carol@example.com?' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await visible(page.locator('.toast', { hasText: 'Removed carol@example.com.' }));
    await page.getByRole('combobox', { name: 'Role of carol@example.com' }).waitFor({ state: 'detached', timeout: 0 });
    expect(await roleOf('carol@example.com')).toBeUndefined();
    const denied = await fetch(`${t.url}/api/org/structures/${structureId}`, { headers: t.auth(carol.token) });
    expect(denied.status).toBeGreaterThanOrEqual(403);
    expect(denied.status).toBeLessThanOrEqual(404);
  });

  it('cancels a pending invite', async () => {
    const row = page.locator('.invites tr', { hasText: 'dave@example.com' });
    await visible(row);
    await row.getByRole('button', { name: 'Cancel invite for dave@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel the invite of dave@example.com?' });
    await dialog.getByRole('button', { name: 'Cancel invite' }).click();
    await visible(page.locator('.toast', { hasText: 'Cancelled the invite of dave@example.com.' }));
    await row.waitFor({ state: 'detached', timeout: 0 });
    expect((await members()).invites.filter((invite) => invite.email === 'dave@example.com' && invite.status === 'pending')).toEqual([]);
    await screenshot(page, 'members-02-after');
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});
