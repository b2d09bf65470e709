/**
 * Large trees and tablets in a real browser (chromium, the built UI, a listening server):
 * a 200-node tree opens readable at its root, Find and the node list bring a node to the
 * middle at a readable size, a manager's reports collapse and come back; Tidy up keeps
 * siblings in their order; a node moves to another manager from Details, and Delete is
 * offered only when the server would accept it; the role id is suggested and checked
 * inline; the details' Save stays in view on a phone; and no width from 320 px up scrolls
 * sideways, with the top bar's controls reachable and the canvas at least half the width.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, openSignedIn, screenshot, type BrowserProblem } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

interface ApiNode {
  id: string;
  role_id: string;
  label: string;
  parent_id: string | null;
  x: number;
  y: number;
}

describe('large trees, tablets and node editing', () => {
  let t: TestInstance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let user: { token: string; id: string };
  let big = '';

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${t.url}${path}`, { method, headers: { ...t.auth(user.token), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const nodesOf = async (id: string) => (await call<{ agents: ApiNode[] }>('GET', `/api/org/structures/${id}`)).agents;
  /** The on-screen box of a node and of the canvas frame. */
  const boxes = async (roleId: string) => ({ node: (await page.locator(`[data-role-id="${roleId}"]`).boundingBox())!, frame: (await page.locator('.canvas-frame').boundingBox())! });
  const inside = (node: { x: number; y: number; width: number; height: number }, frame: { x: number; y: number; width: number; height: number }) =>
    node.x >= frame.x && node.y >= frame.y && node.x + node.width <= frame.x + frame.width && node.y + node.height <= frame.y + frame.height;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    user = await t.createUser('lena@example.com');
    // 200 nodes: a root, 8 directors, 24 managers, 167 reports (added straight to the app: the browser is what is tested).
    const created = await t.createStructure(user.token, 'blank', 'Big');
    big = created.id;
    const root = await t.app.nodes.add(big, { role_id: 'org-root', label: 'Head of everything' }, 'test');
    const directors = [];
    for (let d = 0; d < 8; d++) directors.push(await t.app.nodes.add(big, { role_id: `dir${d}-lead`, label: `Director ${d}`, parent_id: root.id }, 'test'));
    const managers = [];
    for (let m = 0; m < 24; m++) managers.push(await t.app.nodes.add(big, { role_id: `team${m}-lead`, label: `Manager ${m}`, parent_id: directors[m % 8]!.id }, 'test'));
    for (let r = 0; r < 167; r++) await t.app.nodes.add(big, { role_id: `team${r % 24}-member${r}`, label: `Member ${r}`, parent_id: managers[r % 24]!.id }, 'test');
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1440, height: 900 } }));
    context.setDefaultTimeout(15_000);
    await openSignedIn(page, t.url, user.token);
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('opens a 200-node tree readable at its root; Find and the node list centre a node at a readable size', async () => {
    expect(await nodesOf(big)).toHaveLength(200);
    await page.goto(`${t.url}/#/w/${big}`);
    await visible(page.locator('.react-flow[data-fitted="true"]'));
    const first = await boxes('org-root');
    expect(inside(first.node, first.frame)).toBe(true);
    // Readable as the 40-node fit is: a label line at least 7 px tall on screen.
    expect((await page.locator('[data-role-id="org-root"] .card-label').boundingBox())!.height).toBeGreaterThanOrEqual(6.9);
    await screenshot(page, 'large-01-opened');

    // Find: by label words in any order.
    await page.getByLabel('Find a node by label or role id').fill('member 166');
    await page.locator('.node-search-item', { hasText: 'Member 166' }).click();
    await page.locator('[data-role-id="team22-member166"][aria-pressed="true"]').waitFor();
    await expect.poll(async () => inside((await boxes('team22-member166')).node, (await boxes('team22-member166')).frame)).toBe(true);
    expect((await page.locator('[data-role-id="team22-member166"] .card-label').boundingBox())!.height).toBeGreaterThanOrEqual(12);

    // Find: by role id, for a node far from the last one.
    await page.getByLabel('Find a node by label or role id').fill('team3-member51');
    await page.locator('.node-search-item', { hasText: 'team3-member51' }).first().click();
    await page.locator('[data-role-id="team3-member51"][aria-pressed="true"]').waitFor();
    await expect.poll(async () => inside((await boxes('team3-member51')).node, (await boxes('team3-member51')).frame)).toBe(true);

    // The side list picks another node far away: it comes into view, readable.
    await page.goto(`${t.url}/#/w/${big}`);
    await page.locator('[data-list-role-id="team1-member1"]').click();
    await expect.poll(async () => inside((await boxes('team1-member1')).node, (await boxes('team1-member1')).frame)).toBe(true);
    expect((await page.locator('[data-role-id="team1-member1"] .card-label').boundingBox())!.height).toBeGreaterThanOrEqual(12);
    await screenshot(page, 'large-02-centred');
  });

  it('collapses a manager’s reports on the canvas and shows them again', async () => {
    await page.goto(`${t.url}/#/w/${big}/n/team5-lead`);
    const before = await page.locator('.react-flow__node[data-role-id]').count();
    expect(before).toBe(200);
    await page.getByRole('button', { name: 'Collapse reports' }).click();
    await expect.poll(() => page.locator('.react-flow__node[data-role-id]').count()).toBe(200 - 7);
    await visible(page.locator('[data-role-id="team5-lead"]', { hasText: '+7 hidden' }));
    expect(await page.locator('[data-role-id="team5-member5"]').count()).toBe(0);
    await page.getByRole('button', { name: 'Show reports' }).click();
    await expect.poll(() => page.locator('.react-flow__node[data-role-id]').count()).toBe(200);
  });

  it('Tidy up keeps siblings in the order they have on the canvas (template nodes share one creation time)', async () => {
    const structure = await t.createStructure(user.token, 'exec-team', 'Order');
    const nodes = await nodesOf(structure.id);
    const ceo = nodes.find((node) => node.role_id === 'exec-ceo')!;
    const reports = nodes.filter((node) => node.parent_id === ceo.id).sort((a, b) => a.x - b.x);
    // The author puts the first report at the far right.
    const moved = reports[0]!;
    await call('PATCH', `/api/org/structures/${structure.id}/agents/${moved.role_id}`, { x: reports.at(-1)!.x + 900 });
    const expected = [...reports.slice(1), moved].map((node) => node.role_id);
    await page.goto(`${t.url}/#/w/${structure.id}`);
    await visible(page.locator('.react-flow[data-fitted="true"]'));
    await page.getByRole('button', { name: 'Tidy up' }).click();
    await visible(page.locator('.toast', { hasText: 'Tidied up' }));
    const after = await nodesOf(structure.id);
    const order = after.filter((node) => node.parent_id === ceo.id).sort((a, b) => a.x - b.x).map((node) => node.role_id);
    expect(order).toEqual(expected);
  });

  it('moves a node to another manager from Details; Delete is offered only for a node without reports, saying why', async () => {
    const structure = await t.createStructure(user.token, 'exec-team', 'Moves');
    await page.goto(`${t.url}/#/w/${structure.id}/n/exec-cto`);
    // The CTO has a report: Delete is not offered, and the page says why.
    expect(await page.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
    await visible(page.getByText('Chief Technology Officer has 1 report (Engineering Lead): give them another manager under Details before deleting it.'));
    // Move the report to the COO.
    await page.goto(`${t.url}/#/w/${structure.id}/n/exec-eng-lead`);
    await page.getByRole('button', { name: 'Details' }).click();
    const reportsTo = page.getByLabel('Reports to');
    // Neither the node itself nor one of its reports can be its manager.
    expect(await reportsTo.locator('option').allTextContents()).not.toContain('Engineering Lead (exec-eng-lead)');
    await reportsTo.selectOption({ label: 'Chief Operating Officer (exec-coo)' });
    await page.getByRole('button', { name: 'Save details' }).click();
    await visible(page.getByText('Saved.'));
    const nodes = await nodesOf(structure.id);
    expect(nodes.find((node) => node.role_id === 'exec-eng-lead')!.parent_id).toBe(nodes.find((node) => node.role_id === 'exec-coo')!.id);
    await visible(page.getByText('reports to Chief Operating Officer'));
    // Now the CTO can go.
    await page.goto(`${t.url}/#/w/${structure.id}/n/exec-cto`);
    expect(await page.getByRole('button', { name: 'Delete' }).isDisabled()).toBe(false);
  });

  it('suggests a role id from the label under the manager’s team and says inline why "sre" is refused', async () => {
    const structure = await t.createStructure(user.token, 'exec-team', 'Roles');
    await page.goto(`${t.url}/#/w/${structure.id}/n/exec-cto`);
    await page.getByRole('button', { name: '+ Add node' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a node' });
    await dialog.getByLabel('Label', { exact: true }).fill('Site reliability');
    expect(await dialog.getByLabel('Role id').inputValue()).toBe('exec-site-reliability');
    await dialog.getByLabel('Role id').fill('sre');
    await visible(dialog.getByText('Add the team in front, like exec-sre: a role id is a team and a role joined by a dash.'));
    await dialog.getByRole('button', { name: 'Add node' }).click();
    expect((await nodesOf(structure.id)).some((node) => node.role_id === 'sre')).toBe(false);
    await dialog.getByLabel('Role id').fill('exec-sre');
    await dialog.getByRole('button', { name: 'Add node' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await nodesOf(structure.id)).some((node) => node.role_id === 'exec-sre')).toBe(true);
  });

  it('keeps the details’ Save in view on a phone, after a save too', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const small = await phone.newPage();
      await openSignedIn(small, t.url, user.token);
      const structure = await t.createStructure(user.token, 'exec-team', 'Phone');
      await small.goto(`${t.url}/#/w/${structure.id}/n/exec-cfo`);
      await small.getByRole('button', { name: 'Details' }).click();
      const save = small.getByRole('button', { name: 'Save details' });
      const fitsView = async () => {
        const box = (await save.boundingBox())!;
        return box.y >= 0 && box.y + box.height <= 844;
      };
      expect(await fitsView()).toBe(true);
      await small.getByLabel('Starting context').fill('A long context.\n'.repeat(40));
      await save.click();
      await small.getByText('Saved.').waitFor();
      expect(await fitsView()).toBe(true);
    } finally {
      await phone.close();
    }
  });

  it('never scrolls sideways from 320 px up; the top bar’s controls stay reachable and the canvas keeps half the width', async () => {
    const structure = await t.createStructure(user.token, 'exec-team', 'Widths');
    for (const width of [320, 600, 761, 820, 939, 1024, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      for (const path of ['/', `/w/${structure.id}/n/exec-cfo`, `/w/${structure.id}/skills`]) {
        await page.goto(`${t.url}/#${path}`);
        await page.locator('main').first().waitFor();
        await expect.poll(() => page.locator('.skeleton').count()).toBe(0);
        expect(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), `${width} ${path}`).toBe(0);
      }
      // Sign out is on screen, or in the menu.
      const signOut = page.getByRole('button', { name: 'Sign out' });
      if (!(await signOut.isVisible())) await page.getByRole('button', { name: 'Menu' }).click();
      const box = (await signOut.boundingBox())!;
      expect(box.x + box.width, `${width}: Sign out`).toBeLessThanOrEqual(width);
      if (width > 760) {
        await page.goto(`${t.url}/#/w/${structure.id}/n/exec-cfo`);
        const frame = (await page.locator('.canvas-frame').boundingBox())!;
        expect(frame.width, `${width}: canvas`).toBeGreaterThanOrEqual(width * 0.45);
      }
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});
