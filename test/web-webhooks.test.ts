/**
 * Webhooks in a real browser (chromium, the built UI, a listening server): an owner adds
 * a webhook and is shown its signing secret once (the secret the server then signs with,
 * checked on a real local receiver), sees bad input explained in words, reads the
 * deliveries log (a 500 then a 200: delivered after two attempts) and removes the webhook
 * after confirming. A viewer gets no Webhooks (nor Keys & members) section and cannot act through the API.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../src/core/schemas/index.js';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, openSignedIn, screenshot, watchConsole, type BrowserProblem } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { notifier } from './helpers/notifier.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { startReceiver, verifyDelivery, type WebhookReceiver } from './helpers/webhook-receiver.js';

/** Console errors the flows cause on purpose: the refused registrations. */
const EXPECTED = [{ text: /Failed to load resource: the server responded with a status of 400/, url: /\/api\/org\/structures\/[0-9a-f-]+\/webhooks$/ }];

const runtime = createScriptedRuntime((turn) => [{ type: 'complete', content: { summary: `done: ${turn.message}`, artifacts: [] } }]);

describe('webhooks in the web UI', () => {
  let t: TestInstance;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let owner: { token: string; id: string };
  let viewer: { token: string; id: string };
  let structureId = '';
  let secret = '';

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });
  const api = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${t.url}/api/org/structures/${structureId}${path}`, { ...init, headers: { ...t.auth(token), ...(init.body ? { 'content-type': 'application/json' } : {}) } });
  const listed = async () => ((await (await api('/webhooks', owner.token)).json()) as { webhooks: { id: string; url: string; events: string[] }[] }).webhooks;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    receiver = await startReceiver();
    t = await startInstance({ listen: true, deps: { runtime: () => runtime, webhookRetrySchedule: [0, 0] } });
    owner = await t.createUser('owner@example.com');
    viewer = await t.createUser('viewer@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Acme')).id;
    await t.app.members.set(structureId, viewer.id, 'viewer');
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1280, height: 800 } }));
    await openSignedIn(page, t.url, owner.token);
    await page.goto(`${t.url}/#/w/${structureId}`);
    await page.getByRole('navigation', { name: 'Workspace sections' }).getByRole('link', { name: 'Webhooks' }).click();
    await visible(page.getByRole('heading', { name: 'Add a webhook' }));
    await visible(page.getByText('No webhook yet.'));
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await receiver?.close();
  });

  it('explains refused input in words and registers nothing', async () => {
    await page.getByLabel('URL').fill('ftp://example.com/hooks');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const alert = page.getByRole('alert');
    await visible(alert);
    expect(await alert.innerText()).toContain('Some of what you entered was not accepted.');
    expect(await alert.innerText()).toMatch(/URL\s+must be an http\(s\) URL/);
    await alert.getByRole('button', { name: 'Dismiss' }).click();

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: /run\.completed/ }).uncheck();
    await page.getByRole('checkbox', { name: /run\.failed/ }).uncheck();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await visible(alert);
    expect(await alert.innerText()).toMatch(/Events\s+needs at least one choice/);
    expect(await alert.innerText()).not.toMatch(/must NOT|minItems|400/);
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    expect(await listed()).toEqual([]);
  });

  it('adds a webhook and shows its signing secret once', async () => {
    await page.getByRole('checkbox', { name: /run\.completed/ }).check();
    await page.getByLabel('Description').fill('billing system');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const shown = page.getByRole('textbox', { name: 'New webhook signing secret' });
    await visible(shown);
    secret = await shown.inputValue();
    expect(secret).toMatch(/^whsec_/);
    const row = page.locator('table.webhooks tbody tr', { hasText: receiver.url });
    await visible(row);
    expect(await row.innerText()).toContain('billing system');
    expect(await listed()).toEqual([expect.objectContaining({ url: receiver.url, events: ['run.completed'] })]);
    await screenshot(page, 'webhooks-01-secret');
    await page.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached', timeout: 0 });
    // Reloading the page never shows the secret again.
    await page.reload();
    await visible(page.locator('table.webhooks tbody tr', { hasText: receiver.url }));
    expect(await page.content()).not.toContain(secret);
  });

  it('lists deliveries with status, response code and attempts', async () => {
    const [webhook] = await listed();
    const seen = new Map<string, Delivery>();
    const changes = notifier();
    const stop = t.app.webhooks.onDelivery((delivery) => {
      seen.set(delivery.id, delivery);
      changes.notify();
    });
    receiver.plan.push(500);
    const sync = await fetch(`${t.url}/api/org/chat/message/sync`, {
      method: 'POST',
      headers: { ...t.auth(owner.token), 'content-type': 'application/json' },
      body: JSON.stringify({ structure_id: structureId, role_id: 'exec-cfo', message: 'close the books' }),
    });
    expect(sync.status).toBe(200);
    await changes.until(() => [...seen.values()].some((delivery) => delivery.status === 'delivered'), 'the delivery to succeed on its retry');
    stop();
    const delivery = [...seen.values()].find((candidate) => candidate.status === 'delivered')!;
    // The secret the page showed is the one deliveries are signed with.
    const received = receiver.received.filter((request) => request.json.id === delivery.id);
    expect(received).toHaveLength(2);
    expect(verifyDelivery(secret, received[1]!)).toEqual(received[1]!.json);

    await page.getByRole('button', { name: `Deliveries of ${webhook!.url}` }).click();
    const log = page.getByRole('region', { name: `Deliveries to ${webhook!.url}` });
    const entry = log.locator(`tr[data-delivery="${delivery.id}"]`);
    await visible(entry);
    const cells = await entry.locator('td').allInnerTexts();
    expect(cells.slice(0, 4)).toEqual(['run.completed', 'delivered', '200', '2']);
    await screenshot(page, 'webhooks-02-deliveries');
  });

  it('removes a webhook after confirming', async () => {
    const [webhook] = await listed();
    await page.getByRole('button', { name: `Remove the webhook to ${webhook!.url}` }).click();
    const dialog = page.getByRole('dialog', { name: `Remove the webhook to ${webhook!.url}?` });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Remove webhook' }).click();
    await visible(page.locator('.toast', { hasText: `Removed the webhook to ${webhook!.url}.` }));
    await visible(page.getByText('No webhook yet.'));
    expect(await listed()).toEqual([]);
  });

  it('gives a viewer no webhooks section, and the API refuses them', async () => {
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const viewerPage = await viewerContext.newPage();
      const viewerProblems = watchConsole(viewerPage);
      await viewerPage.goto(`${t.url}/#token=${viewer.token}`);
      await visible(viewerPage.getByRole('heading', { name: 'Workspaces', exact: true }));
      await viewerPage.goto(`${t.url}/#/w/${structureId}/log`);
      const sections = viewerPage.getByRole('navigation', { name: 'Workspace sections' });
      await visible(sections.getByRole('link', { name: 'Log' }));
      const links = await sections.getByRole('link').allInnerTexts();
      // Owner-only sections are not offered to a viewer.
      expect(links).not.toContain('Webhooks');
      expect(links).not.toContain('Keys & members');
      expect(links).toContain('Skills');
      await viewerPage.goto(`${t.url}/#/w/${structureId}/webhooks`);
      await visible(viewerPage.getByText('Only owners of this workspace can manage its webhooks. Your role is viewer.'));
      expect(await viewerPage.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
      expect(viewerProblems).toEqual([]);
    } finally {
      await viewerContext.close();
    }
    const refused = await api('/webhooks', viewer.token, { method: 'POST', body: JSON.stringify({ url: receiver.url, events: ['run.completed'] }) });
    expect(refused.status).toBe(403);
    expect((await api('/webhooks', viewer.token)).status).toBe(403);
    expect(await listed()).toEqual([]);
  });

  it('logged no unexpected console errors', () => {
    const unexpected = problems.filter((problem) => !EXPECTED.some((expected) => expected.text.test(problem.text) && expected.url.test(problem.url ?? '')));
    expect(unexpected).toEqual([]);
  });
});
