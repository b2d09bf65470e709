/**
 * Delegation in a real browser (chromium, the built UI, a listening server; API.md §10):
 * the CEO's month-end close (the bundled playbook, local runtime) hands step 1 to the CFO,
 * whose turn a container holds. The CEO's chat shows a delegate card with the target and
 * its live status; the canvas shows both nodes working and the edge between them marked;
 * the card's link opens the CFO's chat at the delegated turn, following it, and says who
 * delegated it; when the CFO's turn ends the card shows what came back and the CEO goes
 * on; Stop on the CEO's turn stops the CFO's too. No console errors.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, openSignedIn, screenshot, type BrowserProblem } from './helpers/browser.js';
import { homeWithPackageSkills } from './helpers/package-skills.js';
import { startHoldingContainer, type HoldingContainer } from './helpers/holding-container.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

describe('delegation in the web UI', () => {
  let t: TestInstance;
  let holder: HoldingContainer;
  let home: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let owner: { token: string; id: string };
  let structureId = '';

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });
  const send = async (text: string) => {
    await page.locator('#chat-input').fill(text);
    await page.locator('#chat-input').press('Enter');
  };
  const card = () => page.locator('.ev-delegate').last();
  const canvasNode = (roleId: string) => page.locator(`.react-flow__node[data-role-id="${roleId}"]`);

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    home = await homeWithPackageSkills('org-web-delegation-');
    holder = await startHoldingContainer();
    t = await startInstance({ listen: true, home });
    owner = await t.createUser('olivia@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Acme')).id;
    const patched = await t.server.inject({ method: 'PATCH', url: `/api/org/structures/${structureId}/agents/exec-cfo`, headers: t.auth(owner.token), payload: { container_url: holder.url } });
    expect(patched.statusCode, patched.body).toBe(200);
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1440, height: 900 } }));
    context.setDefaultTimeout(15_000);
    await openSignedIn(page, t.url, owner.token);
  }, 60_000);

  afterAll(async () => {
    await holder?.close();
    await context?.close();
    await browser?.close();
    await t?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('shows the delegation live in the chat and on the canvas, opens the delegated turn, and its outcome comes back', async () => {
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-ceo`);
    await visible(page.locator('#chat-input'));
    await send('Run the month-end close');
    await holder.turn(1);

    // The card: whom the task went to, working on it (the CFO's node works for the CEO).
    await visible(card().locator('.ev-delegate-target', { hasText: 'Chief Financial Officer (exec-cfo)' }));
    await visible(card().locator('.ev-delegate-status', { hasText: 'Working on it…' }));
    // The canvas: both nodes working, the CFO for the CEO, the edge between them marked.
    await canvasNode('exec-cfo').locator('[data-working-for="exec-ceo"]').waitFor({ state: 'attached', timeout: 0 });
    await visible(canvasNode('exec-ceo').locator('[data-state="working"]'));
    await visible(page.locator('.react-flow__edge.edge-delegation', { hasText: 'delegated' }));
    await screenshot(page, 'delegation-working');

    // The link opens the CFO's chat at the delegated turn, following it, and names who delegated.
    await card().locator('.ev-delegate-link').click();
    await page.waitForURL(/\/n\/exec-cfo\/r\/[0-9a-f-]{36}$/);
    const delegated = page.locator('.msg-user.msg-delegated').last();
    await visible(delegated.locator('.msg-delegated-by', { hasText: 'Delegated by Chief Executive Officer (exec-ceo)' }));
    expect(await delegated.locator('.msg-text').textContent()).toMatch(/^Ask the CFO for the signed-off close: Sign off the month-end close package/);
    const running = page.locator('.msg-agent[aria-busy="true"]');
    await visible(running.locator('.ev-text', { hasText: 'holding' }));
    await screenshot(page, 'delegation-child');

    // The CFO's turn ends: its chat shows it, and back at the CEO the card shows what came back.
    holder.release(1);
    await visible(page.locator('.msg-agent .ev-complete', { hasText: 'released' }));
    await delegated.locator('.msg-delegated-by a').click();
    await page.waitForURL(/\/n\/exec-ceo\/r\/[0-9a-f-]{36}$/);
    await visible(card().locator('.ev-delegate-status', { hasText: 'Done' }));
    await visible(card().locator('.ev-delegate-summary', { hasText: 'released' }));
    await visible(page.locator('.msg-agent .ev-complete', { hasText: 'Followed "Run the month-end close with the exec team" through 3 step(s) with exec-cfo' }));
    // Nothing is marked once no delegated turn runs.
    await expect.poll(() => page.locator('.react-flow__edge.edge-delegation').count(), { timeout: 15_000 }).toBe(0);
    await screenshot(page, 'delegation-done');
  });

  it('Stop on the delegating turn stops the delegated one: both read "stopped"', async () => {
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-ceo`);
    await visible(page.locator('#chat-input'));
    await send('Run the month-end close');
    await holder.turn(2);
    await visible(card().locator('.ev-delegate-status', { hasText: 'Working on it…' }));
    await page.getByRole('button', { name: '■ Stop' }).click();
    await visible(card().locator('.ev-delegate-status', { hasText: 'Stopped' }));
    await visible(page.locator('.msg-agent .ev-stopped').last());
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-cfo`);
    await visible(page.locator('.msg-agent').last().locator('.ev-stopped', { hasText: 'Stopped by you.' }));
    expect(problems).toEqual([]);
  });
});
