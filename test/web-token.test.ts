/**
 * A person replaces their own token in a real browser (chromium, the built UI, a
 * listening server): "New token" asks first, then shows the new token once; the server
 * refuses the old one from then on, the page carries on with the new one (also after a
 * reload, from the browser's storage), and the administrator gets no such button. Another
 * tab of the same browser follows the new token: a turn it was streaming goes on there
 * with the new token, without an error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, openSignedIn, screenshot, type BrowserProblem } from './helpers/browser.js';
import { createGatedRuntime } from './helpers/gated-runtime.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

describe('replacing one’s token in the web UI', () => {
  let t: TestInstance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let ivy: { token: string; id: string };

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });
  const whoami = (token: string) => fetch(`${t.url}/api/org/whoami`, { headers: t.auth(token) });

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    ivy = await t.createUser('ivy@example.com');
    await t.createStructure(ivy.token, 'personal', 'Ivy’s');
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1280, height: 800 } }));
    await openSignedIn(page, t.url, ivy.token);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('asks first; Cancel changes nothing', async () => {
    await page.getByRole('button', { name: 'New token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Replace your token' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 0 });
    expect((await whoami(ivy.token)).status).toBe(200);
  });

  it('shows the new token once; the old one is refused and the page carries on with the new one, also after a reload', async () => {
    await page.getByRole('button', { name: 'New token' }).click();
    await page.getByRole('dialog', { name: 'Replace your token' }).getByRole('button', { name: 'Replace token' }).click();
    const shown = page.getByRole('textbox', { name: 'New sign-in token' });
    await visible(shown);
    const fresh = await shown.inputValue();
    expect(fresh).toMatch(/^org_u_[0-9A-Za-z]{32,}$/);
    await screenshot(page, 'token-01-new');
    expect((await whoami(ivy.token)).status).toBe(401);
    expect((await whoami(fresh)).status).toBe(200);
    expect(await page.evaluate("localStorage.getItem('org.token')")).toBe(fresh);

    await page.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached', timeout: 0 });
    // The page still works with the new token: a workspace opens, and a reload stays signed in.
    await page.getByRole('link', { name: 'Ivy’s' }).first().click();
    await visible(page.locator('[data-role-id="personal-assistant"]'));
    await page.reload();
    await visible(page.locator('[data-role-id="personal-assistant"]'));
    await visible(page.locator('.who', { hasText: 'ivy@example.com' }));
  });

  it('offers no such button to the administrator (whose token is set in the configuration)', async () => {
    const admin = await context.newPage();
    // This browser is signed in as the user: the administrator's link asks before switching.
    await admin.goto(`${t.url}/#token=${ADMIN_TOKEN}`);
    await admin.getByRole('button', { name: 'Switch to the administrator' }).click();
    await admin.getByRole('heading', { name: 'Workspaces', exact: true }).waitFor({ state: 'visible', timeout: 0 });
    await visible(admin.getByRole('button', { name: 'Sign out' }));
    expect(await admin.getByRole('button', { name: 'New token' }).count()).toBe(0);
    await admin.close();
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});

describe('a token replaced in another tab', () => {
  let t: TestInstance;
  let browser: Browser;
  let context: BrowserContext;
  let problems: BrowserProblem[];
  const gated = createGatedRuntime();
  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true, deps: { runtime: () => gated.runtime } });
    const kim = await t.createUser('kim@example.com');
    await t.createStructure(kim.token, 'personal', 'Kim’s');
    let page: Page;
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1280, height: 800 } }));
    await openSignedIn(page, t.url, kim.token);
  }, 60_000);

  afterAll(async () => {
    gated.release();
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('goes on streaming a running turn in the first tab with the new token, with no error shown', async () => {
    const [first] = context.pages() as [Page];
    await first.getByRole('link', { name: 'Kim’s' }).first().click();
    await first.locator('[data-role-id="personal-assistant"]').click();
    await first.locator('#chat-input').fill('the gated quarterly plan');
    await first.locator('#chat-input').press('Enter');
    await gated.waiting();
    const turn = first.locator('.msg-agent').last();
    await visible(turn.locator('.ev-thought', { hasText: 'reading: the gated quarterly plan' }));

    // The second tab shares the browser's storage, and makes the new token.
    const second = await context.newPage();
    await second.goto(t.url);
    await visible(second.getByRole('heading', { name: 'Workspaces', exact: true }));
    await second.getByRole('button', { name: 'New token' }).click();
    // The first tab follows the running turn again, with the new token.
    const resumed = first.waitForRequest((request) => request.url().endsWith('/events') && request.url().includes('/api/org/chat/runs/'), { timeout: 0 });
    await second.getByRole('dialog', { name: 'Replace your token' }).getByRole('button', { name: 'Replace token' }).click();
    const shown = second.getByRole('textbox', { name: 'New sign-in token' });
    await visible(shown);
    const fresh = await shown.inputValue();
    expect((await resumed).headers().authorization).toBe(`Bearer ${fresh}`);

    gated.release();
    const again = first.locator('.msg-agent').last();
    await visible(again.locator('.ev-complete'));
    // Each event once: the resumed stream starts after what the reloaded history holds.
    expect(await again.locator('.ev-thought').count()).toBe(1);
    expect(await again.locator('.ev-summary').textContent()).toBe('Done: the gated quarterly plan');
    expect(await first.getByText('this token was replaced').count()).toBe(0);
    expect(await first.locator('.msg-agent .ev-error').count()).toBe(0);
    expect(await first.evaluate("localStorage.getItem('org.token')")).toBe(fresh);
    await second.close();
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});
