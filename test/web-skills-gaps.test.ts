/**
 * The Skills Editor's badges and gap report in a real browser (chromium, the built UI, a
 * listening server): the Drafts review and Gaps tabs count what waits; the Gaps tab lists
 * the requests no skill answered, most frequent first, and "Start a skill from this
 * request" opens the editor with the request as the first trigger; the skill saved from it
 * closes the gap, and approving a draft empties the drafts badge, each without a reload;
 * a viewer sees the drafts badge and no Gaps tab.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { browserProfiles, type BrowserProfiles, screenshot } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const REQUEST = 'reconcile the warehouse vendor invoices';

describe('the gap report and the tab badges in the web UI', () => {
  let t: TestInstance;
  let profiles: BrowserProfiles;
  let owner: { token: string; id: string };
  let structureId = '';

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 8000 });
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { ...t.auth(owner.token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  };
  const signedIn = (token: string) => profiles.open({ url: t.url, token });
  /** The count badge of a Skills Editor tab ('' when it shows none). */
  const badge = async (page: Page, tab: string) => {
    const count = page.getByRole('navigation', { name: 'Skills Editor' }).getByRole('link').filter({ hasText: tab }).locator('.count');
    return (await count.count()) === 0 ? '' : ((await count.textContent()) ?? '');
  };

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    owner = await t.createUser('olivia@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Acme')).id;
    await post('/api/org/knowledge/skills', {
      structure_id: structureId,
      slug: 'plan-offsite',
      frontmatter: { type: 'skill', name: 'Plan a team offsite', status: 'draft', summary: 'Venue, agenda, budget.' },
      body: '## [venue] Step 1: Book the venue\n\nThree quotes first.\n',
    });
    // Requests no skill answers: one asked twice, one once.
    for (const message of [REQUEST, REQUEST, 'translate the brochure into Portuguese']) {
      await post('/api/org/chat/message/sync', { structure_id: structureId, role_id: 'exec-cfo', message });
    }
    profiles = await browserProfiles();
  }, 60_000);

  afterAll(async () => {
    await profiles?.close();
    await t?.close();
    expect(profiles.problems).toEqual([]);
  });

  it('counts open gaps and waiting drafts on their tabs, lists the gaps most frequent first, and a skill started from one closes it', async () => {
    const page = await signedIn(owner.token);
    await page.goto(`${t.url}/#/w/${structureId}/skills`);
    await expect.poll(() => badge(page, 'Gaps')).toBe('2 open');
    await expect.poll(() => badge(page, 'Drafts review')).toBe('1 waiting');

    await page.getByRole('link', { name: /^Gaps/ }).click();
    await visible(page.getByRole('heading', { name: 'What to teach next' }));
    expect(await page.title()).toBe('What to teach next · org');
    const cards = page.locator('.gap-card');
    await expect.poll(() => cards.count()).toBe(2);
    expect(await cards.first().locator('strong').textContent()).toBe(`“${REQUEST}”`);
    expect(await cards.first().textContent()).toMatch(/2 requests · (no skill matched|only weak matches)/);
    expect(await cards.nth(1).textContent()).toContain('1 request · ');
    await screenshot(page, 'gaps-01-report');

    await cards.first().getByRole('link', { name: 'Start a skill from this request' }).click();
    await visible(page.getByRole('heading', { name: 'New skill' }));
    expect(await page.getByLabel('Triggers (one example request a line)').inputValue()).toBe(REQUEST);
    expect(await page.getByLabel('Name').inputValue()).toBe(REQUEST);
    await page.getByLabel('Status').selectOption('complete');
    await page.getByLabel('Summary').fill('Match the warehouse vendor invoices to purchase orders.');
    await page.getByLabel('Markdown body').fill('## [match] Step 1: Match invoices\n\nCompare each warehouse vendor invoice with its purchase order.\n');
    await page.getByRole('button', { name: 'Save skill' }).click();
    await visible(page.getByRole('heading', { name: REQUEST, exact: true }));

    // Back on the report (no reload): the gap a skill now answers is gone, and the badge says so.
    await page.getByRole('link', { name: /^Gaps/ }).click();
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.first().textContent()).toContain('translate the brochure into Portuguese');
    await expect.poll(() => badge(page, 'Gaps')).toBe('1 open');
    await page.close();
  });

  it('empties the drafts badge as soon as the last draft is approved', async () => {
    const page = await signedIn(owner.token);
    await page.goto(`${t.url}/#/w/${structureId}/skills/drafts`);
    await expect.poll(() => badge(page, 'Drafts review')).toBe('1 waiting');
    const review = page.getByRole('region', { name: 'Draft preview' });
    await visible(review.getByRole('heading', { name: 'Plan a team offsite' }));
    await review.getByRole('button', { name: 'Approve' }).click();
    await visible(review.getByText('Approved plan-offsite: it is complete now, and agents can match it.'));
    await expect.poll(() => badge(page, 'Drafts review')).toBe('');
    await visible(page.getByText('No draft waits for review.'));
    await page.close();
  });

  it('shows a viewer the drafts badge and no Gaps tab (the gap report is for operators and owners)', async () => {
    await post('/api/org/knowledge/skills', {
      structure_id: structureId,
      slug: 'run-payroll',
      frontmatter: { type: 'skill', name: 'Run payroll', status: 'draft', summary: 'Monthly payroll.' },
      body: '## [run] Step 1: Run it\n\nCheck the hours first.\n',
    });
    const viewer = await t.createUser('victor@example.com');
    await t.app.members.set(structureId, viewer.id, 'viewer');
    const page = await signedIn(viewer.token);
    await page.goto(`${t.url}/#/w/${structureId}/skills`);
    await expect.poll(() => badge(page, 'Drafts review')).toBe('1 waiting');
    const tabs = page.getByRole('navigation', { name: 'Skills Editor' });
    await visible(tabs.getByRole('link', { name: 'Catalog' }));
    expect(await tabs.getByRole('link').filter({ hasText: 'Gaps' }).count()).toBe(0);
    await page.close();
  });
});
