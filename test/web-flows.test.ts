/**
 * Second-pass flows of the web UI in a real browser: a new skill never replaces an
 * existing one (the editor offers to open it), unsaved edits ask before leaving, a
 * node's artifact shelf (which run made each file, preview of markdown and images,
 * download), skill files that do not parse listed with their line, a deleted skill back
 * with Undo, page titles, and a phone: the menu, the node list and the full-screen chat.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, openSignedIn, screenshot, watchConsole, type BrowserProblem } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const WAIT = 15_000;
/** A 2×2 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==';
const PUBLISHED = '## [welcome] Step 1: Welcome them\n\nThe real, published playbook.\n';

/** Requests the tests fail on purpose, which chromium reports on the console. */
const EXPECTED = [{ text: /status of 409/, url: /\/api\/org\/knowledge\/skills$/ }];

describe('web UI flows', () => {
  let t: TestInstance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let user: { token: string; id: string };
  let structureId = '';
  let runId = '';

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: WAIT });
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${t.url}${path}`, { method, headers: { ...t.auth(user.token), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    user = await t.createUser('lead@example.com');
    structureId = (await t.createStructure(user.token, 'exec-team', 'Acme')).id;
    await call('POST', '/api/org/knowledge/skills', {
      structure_id: structureId,
      slug: 'onboard-new-hire',
      frontmatter: { type: 'skill', name: 'Onboard new hire', status: 'complete', summary: 'Get a new hire productive in their first week.', tags: ['hr'] },
      body: PUBLISHED,
    });
    const turn = await call<{ run_id: string }>('POST', '/api/org/chat/message/sync', {
      structure_id: structureId,
      role_id: 'exec-cfo',
      message: '/onboard-new-hire for the new analyst',
      attachments: [
        { name: 'notes.md', content_type: 'text/markdown', content_base64: Buffer.from('# Analyst notes\n\n| day | task |\n|---|---|\n| 1 | laptop |\n').toString('base64') },
        { name: 'badge.png', content_type: 'image/png', content_base64: PNG },
      ],
    });
    runId = turn.run_id;
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1280, height: 800 }, acceptDownloads: true }));
    await openSignedIn(page, t.url, user.token);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('never overwrites a skill from "New skill": it offers to open the existing one', async () => {
    const file = join(t.home, 'skills', structureId, 'onboard-new-hire.md');
    const before = await readFile(file, 'utf8');
    await page.goto(`${t.url}/#/w/${structureId}/skills/new`);
    await page.getByLabel('Name').fill('Onboard new hire');
    expect(await page.getByLabel('Slug').inputValue()).toBe('onboard-new-hire');
    const refused = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/api/org/knowledge/skills'));
    await page.getByRole('button', { name: 'Save skill' }).click();
    const response = await refused;
    expect(response.status()).toBe(409);
    expect(response.request().headers()['if-none-match']).toBe('*');
    const note = page.locator('.notice-error', { hasText: 'That already exists.' });
    await visible(note);
    expect(await note.textContent()).not.toContain('409');
    await screenshot(page, 'flows-01-conflict');
    expect(await readFile(file, 'utf8')).toBe(before);

    // "Choose another slug" puts the cursor in the slug field; "Open the existing one" opens it (after asking about the typed work).
    await note.getByRole('button', { name: 'Choose another slug' }).click();
    expect(await page.evaluate("document.activeElement?.getAttribute('name')")).toBe('slug');
    await page.getByRole('button', { name: 'Save skill' }).click();
    await visible(page.locator('.notice-error', { hasText: 'That already exists.' }));
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('link', { name: 'Open the existing one' }).click();
    await visible(page.getByRole('heading', { name: 'Onboard new hire' }));
    await visible(page.getByText('The real, published playbook.'));
    expect(await page.title()).toBe('onboard-new-hire · org');
  });

  it('asks before leaving the editor with unsaved changes, and keeps the author’s YAML on save', async () => {
    const file = join(t.home, 'skills', structureId, 'onboard-new-hire.md');
    await writeFile(file, (await readFile(file, 'utf8')).replace('tags:\n  - hr\n', '# reviewed by HR\ntags: [hr]\n'));
    await page.goto(`${t.url}/#/w/${structureId}/skills/s/onboard-new-hire/edit`);
    await visible(page.getByRole('heading', { name: 'Edit onboard-new-hire' }));
    await page.getByLabel('Summary').fill('Get a new hire productive in their first three days.');
    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Catalog' }).click();
    await expect.poll(() => asked, { timeout: WAIT }).toContain('not saved');
    // Still in the editor, with the typed text.
    expect(await page.getByLabel('Summary').inputValue()).toBe('Get a new hire productive in their first three days.');
    expect(page.url()).toContain('/edit');
    await page.getByRole('button', { name: 'Save skill' }).click();
    await visible(page.getByRole('heading', { name: 'Onboard new hire' }));
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# reviewed by HR\ntags: [hr]\n');
    expect(text).toContain('summary: Get a new hire productive in their first three days.');
  });

  it('lists skill files that do not parse, with the file, the line and the message', async () => {
    await writeFile(join(t.home, 'skills', 'broken-playbook.md'), '---\ntype: skill\nname: Broken\nsummary: Plan: venue: budget\n---\nbody\n');
    await page.goto(`${t.url}/#/w/${structureId}/skills`);
    const banner = page.locator('.notice-warning', { hasText: 'could not be loaded' });
    await visible(banner);
    await banner.getByRole('link', { name: 'See what is wrong' }).click();
    const problem = page.locator('.problem', { hasText: 'broken-playbook.md' });
    await visible(problem);
    expect(await problem.locator('.problem-where').textContent()).toBe('skills/broken-playbook.md:4');
    expect(await problem.locator('.problem-message').textContent()).toContain('front matter is not valid YAML');
    expect(await page.title()).toBe('Skill problems · org');
    await screenshot(page, 'flows-02-problems');
  });

  it('shows the node’s artifact shelf: which run made each file, previews, downloads', async () => {
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-cfo`);
    await page.getByRole('tab', { name: 'Files' }).click();
    const notes = page.locator('.shelf-item[data-artifact="notes.md"]');
    await visible(notes);
    expect(await notes.textContent()).toContain(`Attached to a message of run ${runId.slice(0, 8)}`);
    expect(await notes.textContent()).toContain('Markdown');
    const report = page.locator('.shelf-item', { hasText: 'run-report-' });
    expect(await report.textContent()).toContain(`Written by the agent in run ${runId.slice(0, 8)}`);
    await screenshot(page, 'flows-03-shelf');

    // Markdown renders, tables included.
    await notes.getByRole('button', { name: 'Preview notes.md' }).click();
    const dialog = page.getByRole('dialog', { name: 'notes.md' });
    await visible(dialog.getByRole('heading', { name: 'Analyst notes' }));
    await visible(dialog.locator('td', { hasText: 'laptop' }));
    await dialog.locator('.dialog-actions').getByRole('button', { name: 'Close' }).click();
    // Focus is back on the button that opened the preview.
    expect(await page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe('Preview notes.md');

    // An image previews from the bytes fetched with the bearer.
    await page.getByRole('button', { name: 'Preview badge.png' }).click();
    const image = page.getByRole('img', { name: 'Preview of badge.png' });
    await visible(image);
    expect(await image.getAttribute('src')).toMatch(/^blob:/);
    await expect.poll(() => page.evaluate(`document.querySelector('img.preview-image')?.naturalWidth`), { timeout: WAIT }).toBe(2);
    await page.getByRole('dialog', { name: 'badge.png' }).locator('.dialog-actions').getByRole('button', { name: 'Close' }).click();

    // A download carries the file itself.
    const downloading = page.waitForEvent('download', { timeout: WAIT });
    await report.getByRole('button', { name: /^Download run-report-/ }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^run-report-[0-9a-f]{8}\.md$/);
    expect(await readFile((await download.path())!, 'utf8')).toContain('# Run report');

    // The run link opens that turn in the chat.
    await notes.getByRole('button', { name: `run ${runId.slice(0, 8)}` }).click();
    await expect.poll(() => page.evaluate('document.activeElement?.id'), { timeout: WAIT }).toBe(`run-${runId}`);
    expect(await page.getByRole('tab', { name: 'Chat' }).getAttribute('aria-selected')).toBe('true');
  });

  it('deletes a skill after confirming, and the toast’s Undo brings it back', async () => {
    await call('POST', '/api/org/knowledge/skills', {
      structure_id: structureId,
      slug: 'retire-me',
      frontmatter: { type: 'skill', name: 'Retire me', status: 'draft', summary: 'A skill to delete and bring back.' },
      body: '## [a] Step 1: A\n\nDo it.\n',
    });
    const file = join(t.home, 'skills', structureId, 'retire-me.md');
    await page.goto(`${t.url}/#/w/${structureId}/skills/s/retire-me`);
    await visible(page.getByRole('heading', { name: 'Retire me' }));
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete retire-me?' }).getByRole('button', { name: 'Delete skill' }).click();
    const toast = page.locator('.toast', { hasText: 'Deleted Retire me.' });
    await visible(toast);
    expect(existsSync(file)).toBe(false);
    await toast.getByRole('button', { name: 'Undo' }).click();
    await visible(page.getByRole('heading', { name: 'Retire me' }));
    expect(existsSync(file)).toBe(true);
    expect((await call<{ frontmatter: { name: string } }>('GET', '/api/org/knowledge/skills/retire-me')).frontmatter.name).toBe('Retire me');
  });

  it('works on a phone: a menu, the node list instead of the canvas, a full-screen chat', async () => {
    const phone = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    try {
      const mobile = await phone.newPage();
      const mobileProblems = watchConsole(mobile);
      await openSignedIn(mobile, t.url, user.token);
      await mobile.goto(`${t.url}/#/w/${structureId}`);
      await visible(mobile.getByRole('list', { name: 'Nodes' }));
      expect(await mobile.locator('.react-flow').count()).toBe(0);
      const toggle = mobile.getByRole('button', { name: 'Menu' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await mobile.getByRole('link', { name: 'Log', exact: true }).isVisible()).toBe(false);
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      await visible(mobile.getByRole('button', { name: 'Sign out' }));
      await screenshot(mobile, 'flows-04-phone-menu');
      await mobile.getByRole('link', { name: 'Log', exact: true }).click();
      await visible(mobile.getByRole('heading', { name: 'Workspace log' }));
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');

      await mobile.goto(`${t.url}/#/w/${structureId}`);
      await mobile.locator('[data-list-role-id="exec-cfo"]').click();
      await visible(mobile.locator('#chat-input'));
      const panel = (await mobile.locator('.side-panel').boundingBox())!;
      expect(panel.width).toBe(360);
      expect(panel.x).toBe(0);
      expect(await mobile.locator('.canvas-area').isVisible()).toBe(false);
      await screenshot(mobile, 'flows-05-phone-chat');
      await mobile.getByRole('link', { name: 'All nodes' }).click();
      await visible(mobile.getByRole('list', { name: 'Nodes' }));
      expect(mobileProblems).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('logged no console errors beyond the conflict it provoked on purpose', () => {
    const unexpected = problems.filter((problem) => !EXPECTED.some((expected) => expected.text.test(problem.text) && expected.url.test(problem.url ?? '')));
    expect(unexpected).toEqual([]);
  });
});
