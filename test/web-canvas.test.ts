/**
 * The canvas in a real browser (chromium via playwright-core, the built UI, a listening
 * server): nodes added through the API without a position are laid out without
 * overlaps, a 40-node tree fits the canvas readably with a minimap, "Tidy up" saves the
 * layout (and Undo puts it back), the wheel zooms at the pointer, the node panel
 * resizes from the keyboard and focus returns to the control that opened a dialog.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, openSignedIn, screenshot, type BrowserProblem } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const WAIT = 15_000;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface ApiNode {
  id: string;
  role_id: string;
  x: number;
  y: number;
}

const overlapping = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('the canvas lays itself out', () => {
  let t: TestInstance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let user: { token: string; id: string };

  const headers = () => ({ ...t.auth(user.token), 'content-type': 'application/json' });
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${t.url}${path}`, { method, headers: headers(), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  /**
   * Adds nodes all at the origin, on top of each other and of the root (as older clients
   * stored nodes given no position), or with `unplaced` without a position, as the CLI
   * adds them (the server places them).
   */
  const addNodes = async (structureId: string, nodes: { role_id: string; parent: string }[], options: { unplaced?: true } = {}) => {
    const ids = new Map((await call<{ agents: ApiNode[] }>('GET', `/api/org/structures/${structureId}`)).agents.map((node) => [node.role_id, node.id]));
    const at = options.unplaced ? {} : { x: 0, y: 0 };
    for (const node of nodes) {
      const created = await call<ApiNode>('POST', `/api/org/structures/${structureId}/agents`, { role_id: node.role_id, label: node.role_id.replace(/-/g, ' '), parent_id: ids.get(node.parent), ...at });
      ids.set(node.role_id, created.id);
    }
  };
  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: WAIT });
  const boxes = async () => {
    const nodes = page.locator('.react-flow__node[data-role-id]');
    const count = await nodes.count();
    return Promise.all(Array.from({ length: count }, async (_, index) => ({ role: (await nodes.nth(index).getAttribute('data-role-id'))!, box: (await nodes.nth(index).boundingBox())! })));
  };
  const expectNoOverlaps = (list: { role: string; box: Box }[]) => {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) expect(overlapping(list[i]!.box, list[j]!.box), `${list[i]!.role} overlaps ${list[j]!.role}`).toBe(false);
    }
  };
  const openCanvas = async (structureId: string, count: number) => {
    await page.goto(`${t.url}/#/w/${structureId}`);
    await expect.poll(() => page.locator('.react-flow__node[data-role-id]').count(), { timeout: WAIT }).toBe(count);
    await visible(page.locator('.react-flow[data-fitted="true"]'));
  };

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    user = await t.createUser('lead@example.com');
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1440, height: 900 } }));
    await openSignedIn(page, t.url, user.token);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('lays out nodes stored on top of each other (at 0,0), clear of each other and of the template', async () => {
    const structure = await t.createStructure(user.token, 'exec-team', 'Stacked');
    await addNodes(structure.id, [
      { role_id: 'exec-cpo', parent: 'exec-ceo' },
      { role_id: 'exec-cio', parent: 'exec-ceo' },
      { role_id: 'exec-sre-lead', parent: 'exec-cto' },
      { role_id: 'exec-sec-lead', parent: 'exec-cto' },
      { role_id: 'exec-oncall', parent: 'exec-sre-lead' },
    ]);
    // All five sit at 0,0 on the server, on top of the root.
    const stored = (await call<{ agents: ApiNode[] }>('GET', `/api/org/structures/${structure.id}`)).agents;
    expect(stored.filter((node) => node.x === 0 && node.y === 0)).toHaveLength(6);
    await openCanvas(structure.id, 12);
    const shown = await boxes();
    expectNoOverlaps(shown);
    const at = (role: string) => shown.find((entry) => entry.role === role)!.box;
    expect(at('exec-sre-lead').y).toBeGreaterThan(at('exec-cto').y);
    expect(at('exec-oncall').y).toBeGreaterThan(at('exec-sre-lead').y);
    await screenshot(page, 'canvas-01-api-added');
  });

  it('shows nodes added through the API without a position where the server placed them: below their parents, clear of each other and of the template', async () => {
    const structure = await t.createStructure(user.token, 'exec-team', 'Placed');
    const added = [
      { role_id: 'exec-cpo', parent: 'exec-ceo' },
      { role_id: 'exec-cio', parent: 'exec-ceo' },
      { role_id: 'exec-sre-lead', parent: 'exec-cto' },
      { role_id: 'exec-sec-lead', parent: 'exec-cto' },
      { role_id: 'exec-oncall', parent: 'exec-sre-lead' },
    ];
    await addNodes(structure.id, added, { unplaced: true });
    const stored = (await call<{ agents: ApiNode[] }>('GET', `/api/org/structures/${structure.id}`)).agents;
    const node = (role: string) => stored.find((entry) => entry.role_id === role)!;
    // The server put each one rank below its parent, and none on another node.
    for (const { role_id, parent } of added) expect(node(role_id).y, role_id).toBe(node(parent).y + 180);
    for (const a of stored) for (const b of stored) if (a !== b) expect(Math.abs(a.x - b.x) >= 232 || Math.abs(a.y - b.y) >= 64, `${a.role_id} / ${b.role_id}`).toBe(true);
    await openCanvas(structure.id, 12);
    const shown = await boxes();
    expectNoOverlaps(shown);
    // The canvas shows every node where it is stored: one scale and offset maps stored centres to the screen.
    const centre = (role: string) => {
      const box = shown.find((entry) => entry.role === role)!.box;
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    };
    const [ceo, cmo] = [centre('exec-ceo'), centre('exec-cmo')];
    const scale = (cmo.x - ceo.x) / (node('exec-cmo').x - node('exec-ceo').x);
    for (const entry of stored) {
      expect(Math.abs(centre(entry.role_id).x - (ceo.x + (entry.x - node('exec-ceo').x) * scale)), entry.role_id).toBeLessThan(2);
      expect(Math.abs(centre(entry.role_id).y - (ceo.y + (entry.y - node('exec-ceo').y) * scale)), entry.role_id).toBeLessThan(2);
    }
    await screenshot(page, 'canvas-01b-server-placed');
  });

  it('fits a 40-node tree into the canvas, readable, with a minimap; zooms at the pointer', async () => {
    const structure = await t.createStructure(user.token, 'blank', 'Forty');
    await call('POST', `/api/org/structures/${structure.id}/agents`, { role_id: 'org-root', label: 'Head of everything' });
    const tree: { role_id: string; parent: string }[] = [];
    for (let m = 0; m < 6; m++) {
      tree.push({ role_id: `team${m}-lead`, parent: 'org-root' });
      for (let r = 0; r < 5; r++) tree.push({ role_id: `team${m}-member${r}`, parent: `team${m}-lead` });
    }
    tree.push({ role_id: 'team0-intern', parent: 'team0-member0' }, { role_id: 'team1-intern', parent: 'team1-member0' }, { role_id: 'team2-intern', parent: 'team2-member3' });
    await addNodes(structure.id, tree);
    await openCanvas(structure.id, 40);
    const frame = (await page.locator('.canvas-frame').boundingBox())!;
    const shown = await boxes();
    expectNoOverlaps(shown);
    for (const { role, box } of shown) {
      expect(box.x, role).toBeGreaterThanOrEqual(frame.x);
      expect(box.y, role).toBeGreaterThanOrEqual(frame.y);
      expect(box.x + box.width, role).toBeLessThanOrEqual(frame.x + frame.width);
      expect(box.y + box.height, role).toBeLessThanOrEqual(frame.y + frame.height);
    }
    // Readable when fitted: a label is at least 7 px tall on screen.
    expect((await page.locator('.card-label').first().boundingBox())!.height).toBeGreaterThanOrEqual(7);
    await visible(page.getByLabel('Minimap of the tree'));
    await screenshot(page, 'canvas-02-forty-nodes');

    // The wheel zooms in at the pointer: the node under it stays under it, and grows.
    const target = page.locator('[data-role-id="team3-lead"]');
    const before = (await target.boundingBox())!;
    const pointer = { x: before.x + before.width / 2, y: before.y + before.height / 2 };
    await page.mouse.move(pointer.x, pointer.y);
    await page.mouse.wheel(0, -400);
    await expect.poll(async () => (await target.boundingBox())!.width, { timeout: WAIT }).toBeGreaterThan(before.width * 1.2);
    const after = (await target.boundingBox())!;
    expect(after.width).toBeGreaterThan(before.width * 1.2);
    expect(Math.abs(after.x + after.width / 2 - pointer.x)).toBeLessThan(4);
    expect(Math.abs(after.y + after.height / 2 - pointer.y)).toBeLessThan(4);
  });

  it('"Tidy up" lays the tree out again and saves every position; Undo puts them back', async () => {
    const structure = await t.createStructure(user.token, 'sales-team', 'Tidy');
    await addNodes(structure.id, [
      { role_id: 'sales-extra-one', parent: 'sales-lead' },
      { role_id: 'sales-extra-two', parent: 'sales-ae' },
    ]);
    const before = (await call<{ agents: ApiNode[] }>('GET', `/api/org/structures/${structure.id}`)).agents;
    await openCanvas(structure.id, before.length);
    const saved = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().includes('/sales-extra-'), { timeout: WAIT });
    await page.getByRole('button', { name: 'Tidy up' }).click();
    await saved;
    const toast = page.locator('.toast', { hasText: 'Tidied up' });
    await visible(toast);
    const tidied = (await call<{ agents: ApiNode[] }>('GET', `/api/org/structures/${structure.id}`)).agents;
    // Every node has a position of its own now, none on top of another.
    const spots = new Set(tidied.map((node) => `${node.x},${node.y}`));
    expect(spots.size).toBe(tidied.length);
    for (const a of tidied) for (const b of tidied) if (a !== b) expect(Math.abs(a.x - b.x) >= 232 || Math.abs(a.y - b.y) >= 64, `${a.role_id} / ${b.role_id}`).toBe(true);
    expectNoOverlaps(await boxes());
    await screenshot(page, 'canvas-03-tidied');

    await toast.getByRole('button', { name: 'Undo' }).click();
    await expect
      .poll(async () => (await call<{ agents: ApiNode[] }>('GET', `/api/org/structures/${structure.id}`)).agents.map((node) => `${node.role_id}@${node.x},${node.y}`).sort(), { timeout: WAIT })
      .toEqual(before.map((node) => `${node.role_id}@${node.x},${node.y}`).sort());
  });

  it('resizes the node panel from the keyboard, and returns focus to the control that opened a dialog', async () => {
    const panel = page.locator('.side-panel');
    const width = (await panel.boundingBox())!.width;
    const splitter = page.getByRole('separator', { name: 'Resize the node panel' });
    await splitter.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => Math.round((await panel.boundingBox())!.width), { timeout: WAIT }).toBe(Math.round(width + 48));
    expect(await splitter.getAttribute('aria-valuenow')).toBe(String(Math.round(width + 48)));

    const opener = page.getByRole('button', { name: 'Archive' });
    await opener.focus();
    await page.keyboard.press('Enter');
    await visible(page.getByRole('dialog', { name: 'Archived nodes' }));
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Archived nodes' }).waitFor({ state: 'detached', timeout: WAIT });
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Archive');
  });

  it('logged no console errors', () => {
    expect(problems).toEqual([]);
  });
});
