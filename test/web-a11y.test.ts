/**
 * Every page of the web UI on phones (360 and 390 px: no sideways page scroll), on a desktop,
 * and in dark mode (following the system): axe-core finds no serious or critical
 * violation, and each page has a title of its own. The findings of every page are
 * written to test-results/web/axe.json.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { axeFindings, type AxeFinding } from './helpers/axe.js';
import { SCREENSHOTS, launchBrowser, watchConsole, type BrowserProblem } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const WAIT = 15_000;

interface Screen {
  name: string;
  /** The fragment to open. */
  path: string;
  /** The page's own title. */
  title: string;
  /** What shows once the page has loaded. */
  ready: (page: Page) => Promise<unknown>;
  /** Opens a part of the page before checking (a tab, a dialog). */
  open?: (page: Page) => Promise<unknown>;
}

const VIEWS = [
  { name: 'small phone', viewport: { width: 360, height: 740 }, colorScheme: 'light' },
  { name: 'phone', viewport: { width: 390, height: 844 }, colorScheme: 'light' },
  { name: 'desktop', viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  { name: 'dark', viewport: { width: 1280, height: 800 }, colorScheme: 'dark' },
] as const;

describe('every page, on a phone, on a desktop and in dark mode', () => {
  let t: TestInstance;
  let browser: Browser;
  let user: { token: string; id: string };
  let screens: Screen[] = [];
  let invite = '';
  const report: Record<string, Record<string, AxeFinding[]>> = {};

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    user = await t.createUser('lead@example.com');
    const sid = (await t.createStructure(user.token, 'exec-team', 'Acme')).id;
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { ...t.auth(user.token), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    const skill = (slug: string, name: string, status: string) =>
      post('/api/org/knowledge/skills', {
        structure_id: sid,
        slug,
        frontmatter: { type: 'skill', name, status, category: 'operations', tags: ['people', 'first-week'], summary: `${name}, step by step, with the checks that say it is done.` },
        body: '## [prepare] Step 1: Prepare\n\n| what | who |\n|---|---|\n| laptop | IT |\n\nDecision: start on a Monday.\n\n## [welcome] Step 2: Welcome\n\nMeet the team.\n',
      });
    await skill('onboard-new-hire', 'Onboard a new hire with a rather long name that wraps on phones', 'complete');
    await skill('plan-offsite', 'Plan a team offsite', 'draft');
    await skill('old-process', 'Old process', 'complete');
    // An update keeps the text it replaces: a version to view and compare.
    await post('/api/org/knowledge/skills', {
      structure_id: sid,
      slug: 'plan-offsite',
      frontmatter: { type: 'skill', name: 'Plan a team offsite', status: 'draft', summary: 'Plan a team offsite, with a budget.' },
      body: '## [prepare] Step 1: Prepare\n\nSet a budget first.\n\n## [welcome] Step 2: Welcome\n\nMeet the team.\n',
    });
    const versions = (await (await fetch(`${t.url}/api/org/knowledge/skills/plan-offsite/versions?structure_id=${sid}`, { headers: t.auth(user.token) })).json()) as { versions: { id: string }[] };
    const version = versions.versions[0]!.id;
    await fetch(`${t.url}/api/org/knowledge/skills/old-process?structure_id=${sid}`, { method: 'DELETE', headers: t.auth(user.token) });
    await writeFile(join(t.home, 'skills', 'broken.md'), '---\ntype: skill\nname: [unclosed\n---\n');
    await post('/api/org/chat/message/sync', {
      structure_id: sid,
      role_id: 'exec-cfo',
      message: '/onboard-new-hire for the new analyst, please',
      attachments: [{ name: 'notes.md', content_type: 'text/markdown', content_base64: Buffer.from('# Notes\n').toString('base64') }],
    });
    // A request no skill answers: a gap on the report.
    await post('/api/org/chat/message/sync', { structure_id: sid, role_id: 'exec-cfo', message: 'translate the brochure into Portuguese' });
    await post(`/api/org/structures/${sid}/agents/exec-cfo/mcp-key`, { label: 'laptop agent' });
    await post(`/api/org/structures/${sid}/share`, { email: 'new.colleague.with.a.long.address@example.com', role: 'viewer' });
    const outbox = join(t.home, '.org', 'outbox');
    const mail = (await Promise.all((await readdir(outbox)).map((name) => readFile(join(outbox, name), 'utf8')))).join('\n').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    invite = /#invite=(org_inv_[A-Za-z0-9]+)/.exec(mail)?.[1] ?? '';
    expect(invite).toBeTruthy();

    const heading = (name: string) => (page: Page) => page.getByRole('heading', { name, exact: true }).first().waitFor({ timeout: WAIT });
    const w = `/w/${sid}`;
    screens = [
      { name: 'workspaces', path: '/', title: 'Workspaces · org', ready: heading('Workspaces') },
      { name: 'canvas', path: w, title: 'Acme · org', ready: heading('Acme') },
      { name: 'node chat', path: `${w}/n/exec-cfo`, title: 'Chief Financial Officer · Acme · org', ready: (page) => page.locator('.ev-complete').first().waitFor({ timeout: WAIT }) },
      {
        name: 'node files',
        path: `${w}/n/exec-cfo`,
        title: 'Chief Financial Officer · Acme · org',
        ready: heading('Chief Financial Officer'),
        open: async (page) => {
          await page.getByRole('tab', { name: 'Files' }).click();
          await page.locator('.shelf-item').first().waitFor({ timeout: WAIT });
        },
      },
      {
        name: 'node details',
        path: `${w}/n/exec-cfo`,
        title: 'Chief Financial Officer · Acme · org',
        ready: heading('Chief Financial Officer'),
        open: (page) => page.getByRole('button', { name: 'Details' }).click(),
      },
      { name: 'skills catalog', path: `${w}/skills`, title: 'Skills · org', ready: (page) => page.locator('.table tbody tr').first().waitFor({ timeout: WAIT }) },
      { name: 'skill page', path: `${w}/skills/s/onboard-new-hire`, title: 'onboard-new-hire · org', ready: (page) => page.locator('.steps').waitFor({ timeout: WAIT }) },
      { name: 'skill editor', path: `${w}/skills/s/onboard-new-hire/edit`, title: 'Edit onboard-new-hire · org', ready: heading('Edit onboard-new-hire') },
      { name: 'new skill', path: `${w}/skills/new`, title: 'New skill · org', ready: heading('New skill') },
      { name: 'drafts review', path: `${w}/skills/drafts`, title: 'Drafts review · org', ready: (page) => page.locator('.review-detail .markdown').waitFor({ timeout: WAIT }) },
      { name: 'deleted skills', path: `${w}/skills/deleted`, title: 'Deleted skills · org', ready: (page) => page.locator('.table tbody tr').first().waitFor({ timeout: WAIT }) },
      {
        name: 'search tester',
        path: `${w}/skills/search`,
        title: 'Search tester · org',
        ready: heading('Search tester'),
        open: async (page) => {
          await page.getByLabel('Message').fill('onboard a new hire in the first week');
          await page.getByRole('button', { name: 'Search' }).click();
          await page.locator('.score').first().waitFor({ timeout: WAIT });
        },
      },
      {
        name: 'skill version',
        path: `${w}/skills/s/plan-offsite/v/${version}`,
        title: 'plan-offsite at an earlier version · org',
        ready: (page) => page.getByRole('region', { name: 'The current version' }).locator('.markdown').waitFor({ timeout: WAIT }),
      },
      {
        name: 'skill version compared',
        path: `${w}/skills/s/plan-offsite/v/${version}?compare`,
        title: 'plan-offsite at an earlier version · org',
        ready: (page) => page.locator('.diff-body .diff-add').first().waitFor({ timeout: WAIT }),
      },
      { name: 'skill gaps', path: `${w}/skills/gaps`, title: 'What to teach next · org', ready: (page) => page.locator('.gap-card').first().waitFor({ timeout: WAIT }) },
      { name: 'skill problems', path: `${w}/skills/problems`, title: 'Skill problems · org', ready: (page) => page.locator('.problem').first().waitFor({ timeout: WAIT }) },
      { name: 'keys and members', path: `${w}/access`, title: 'Keys & members · org', ready: (page) => page.locator('.members tbody tr').first().waitFor({ timeout: WAIT }) },
      { name: 'webhooks', path: `${w}/webhooks`, title: 'Webhooks · org', ready: heading('Add a webhook') },
      { name: 'log', path: `${w}/log`, title: 'Workspace log · org', ready: (page) => page.locator('.timeline-item').first().waitFor({ timeout: WAIT }) },
      { name: 'archive dialog', path: w, title: 'Acme · org', ready: heading('Acme'), open: (page) => page.getByRole('button', { name: 'Archive' }).click() },
    ];
  }, 60_000);

  afterAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    await writeFile(join(SCREENSHOTS, 'axe.json'), `${JSON.stringify(report, null, 2)}\n`);
    await browser?.close();
    await t?.close();
  });

  for (const view of VIEWS) {
    it(`${view.name}: every page fits the width, has its title, and has no serious or critical axe finding`, async () => {
      browser ??= await launchBrowser();
      const context = await browser.newContext({ viewport: view.viewport, colorScheme: view.colorScheme });
      const problems: BrowserProblem[] = [];
      try {
        const page = await context.newPage();
        problems.push(...watchConsole(page));
        const check = async (name: string) => {
          const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
          expect(overflow, `${name}: the page scrolls sideways`).toBe(0);
          const findings = await axeFindings(page);
          (report[view.name] ??= {})[name] = findings;
          expect(findings, name).toEqual([]);
        };

        // Before signing in: the sign-in page and an invite.
        await page.goto(`${t.url}/#/`);
        await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: WAIT });
        expect(await page.title()).toBe('Sign in · org');
        await check('sign in');
        await page.goto(`${t.url}/#invite=${invite}`);
        await page.getByRole('button', { name: 'Accept the invite' }).waitFor({ timeout: WAIT });
        // The invite is read before it is accepted: what it offers shows first.
        await page.getByText(/invited new\.colleague/).waitFor({ timeout: WAIT });
        expect(await page.title()).toBe('Join a workspace · org');
        await check('invite');
        await page.getByRole('button', { name: 'Not now' }).click();

        await page.goto(`${t.url}/#token=${user.token}`);
        await page.getByRole('heading', { name: 'Workspaces', exact: true }).waitFor({ timeout: WAIT });
        if (view.colorScheme === 'dark') {
          // The theme follows the system: a dark page background.
          expect(await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')).toBe('rgb(15, 20, 27)');
        }
        for (const screen of screens) {
          await page.goto(`${t.url}/#${screen.path}`);
          await screen.ready(page);
          await screen.open?.(page);
          await expect.poll(() => page.title(), { timeout: WAIT }).toBe(screen.title);
          await check(screen.name);
        }
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
      // Twenty-two pages, each loaded and checked by axe: a cap for a loaded machine, not a timing.
    }, 180_000);
  }
});
