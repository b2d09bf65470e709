/**
 * End-to-end tests of the web UI in a real browser: Debian's chromium driven by
 * playwright-core against a real listening server with the built UI (dist/web), and
 * the example container agent behind one node. One workspace is walked through in
 * order: sign in, create from a template, drag a node (persisted), chat with a
 * container-backed node (streamed events, summary, attachment), resume a running turn
 * after a reload and after the server drops its stream, stop a slow turn, approve a
 * learned draft, author a skill and download a run report, mint and revoke a key, invite
 * and accept, delete/restore/add nodes (Delete offered only for a node without reports), the log. Screenshots of each page go to
 * test-results/web/. No console errors allowed.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { openBrowserSession, screenshot, watchConsole, type BrowserProblem } from './helpers/browser.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const WAIT = 15_000;

/**
 * Failed requests the test provokes on purpose, which chromium reports on the console:
 * signing in with a wrong token (401 on the workspaces list), shown to the user, and the
 * chat stream the server cuts mid-run (picked up again without the user noticing).
 */
const EXPECTED = [
  { text: /Failed to load resource: the server responded with a status of 401/, url: /\/api\/org\/structures$/ },
  { text: /Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING/, url: /\/api\/org\/chat\/message$/ },
];

interface NodeBody {
  role_id: string;
  x: number;
  y: number;
  container_url: string | null;
}

describe('web UI end to end', () => {
  let t: TestInstance;
  let agent: ContainerAgent;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let user: { token: string; id: string };
  let structureId = '';

  const api = async <T>(path: string, token = ADMIN_TOKEN): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  const node = (roleId: string) => page.locator(`[data-role-id="${roleId}"]`);
  const lastAgent = () => page.locator('.msg-agent').last();
  const select = async (roleId: string) => {
    await node(roleId).click();
    await page.locator('.selected').and(node(roleId)).waitFor({ timeout: WAIT });
    await expect.poll(() => page.locator('.node-header').count(), { timeout: WAIT }).toBe(1);
    await visible(page.locator('.node-header code', { hasText: roleId }));
  };
  const send = async (text: string) => {
    await page.locator('#chat-input').fill(text);
    await page.locator('#chat-input').press('Enter');
  };
  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: WAIT });

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) {
      throw new Error(`the web UI is not built (no ${DEFAULT_WEB_ROOT}index.html): run \`npm run build\` first`);
    }
    agent = await startContainerAgent({ port: 0, log: () => undefined });
    t = await startInstance({ listen: true });
    user = await t.createUser('ada@example.com');
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1280, height: 800 }, acceptDownloads: true }));
    // Every wait of the page fails with what it waited for, well before the test's own timeout.
    context.setDefaultTimeout(WAIT);
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await agent?.close();
  });

  it('signs in with a #token= link (removed from the address bar), signs out, signs in with the form', async () => {
    await page.goto(`${t.url}/#token=${user.token}`);
    await visible(page.getByRole('heading', { name: 'Workspaces', exact: true }));
    expect(page.url()).not.toContain(user.token);
    expect(await page.evaluate('localStorage.getItem("org.token")')).toBe(user.token);
    await visible(page.getByText('ada@example.com'));

    await page.getByRole('button', { name: 'Sign out' }).click();
    await visible(page.getByRole('button', { name: 'Sign in' }));
    expect(await page.evaluate('localStorage.getItem("org.token")')).toBeNull();
    await page.getByLabel('Your token').fill('org_u_not-a-real-token-at-all-000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await visible(page.getByText('That token is unknown or revoked.'));
    await screenshot(page, '01-sign-in');
    await page.getByLabel('Your token').fill(user.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await visible(page.getByRole('heading', { name: 'Workspaces', exact: true }));
  });

  it('creates a structure from a template and draws its tree', async () => {
    await page.getByLabel('Name').fill('Acme');
    await page.getByLabel('Template').selectOption('exec-team');
    await screenshot(page, '02-workspaces');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await visible(page.getByRole('heading', { name: 'Acme' }));
    structureId = /#\/w\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    expect(structureId).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => page.locator('[data-role-id]').count(), { timeout: WAIT }).toBe(7);
    // Edges are drawn once the nodes are measured.
    await expect.poll(() => page.locator('.react-flow__edge-path').count(), { timeout: WAIT }).toBe(6);
    expect(await node('exec-ceo').locator('.card-label').textContent()).toBe('Chief Executive Officer');
    // A node is a button named by what it shows.
    await visible(page.getByRole('button', { name: 'Chief Financial Officer exec-cfo idle', exact: true }));
    await screenshot(page, '03-canvas');

    // The list shows the role and node count.
    await page.getByRole('link', { name: 'All workspaces' }).click();
    const row = page.locator('tr', { hasText: 'Acme' });
    await visible(row);
    expect(await row.locator('td').nth(1).textContent()).toBe('owner');
    expect(await row.locator('td').nth(2).textContent()).toBe('7');
    await row.getByRole('link', { name: 'Acme' }).click();
    await visible(node('exec-ceo'));
  });

  it('drags a node without the view jumping, and the position persists after a reload', async () => {
    const before = (await api<{ agents: NodeBody[] }>(`/api/org/structures/${structureId}`)).body.agents.find((n) => n.role_id === 'exec-cto')!;
    await visible(page.locator('.react-flow[data-fitted="true"]'));
    const box = (await node('exec-cto').boundingBox())!;
    const ceo = await node('exec-ceo').boundingBox();
    const viewport = await page.locator('.react-flow__viewport').getAttribute('style');
    const patched = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().endsWith('/agents/exec-cto'));
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2 + 30, { steps: 4 });
    await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 + 70, { steps: 6 });
    const held = (await node('exec-cto').boundingBox())!;
    await page.mouse.up();
    expect((await patched).status()).toBe(200);
    // No jump after the drop: the node stays where it was let go, the rest and the view stay
    // put (a node dragged well inside the frame, where React Flow does not auto-pan).
    expect(held.x).toBeGreaterThan(box.x + 30);
    expect(await node('exec-cto').boundingBox()).toEqual(held);
    expect(await node('exec-ceo').boundingBox()).toEqual(ceo);
    expect(await page.locator('.react-flow__viewport').getAttribute('style')).toBe(viewport);
    const after = (await api<{ agents: NodeBody[] }>(`/api/org/structures/${structureId}`)).body.agents.find((n) => n.role_id === 'exec-cto')!;
    expect(after.x).toBeGreaterThan(before.x + 20);
    expect(after.y).toBeGreaterThan(before.y + 20);

    await page.reload();
    await visible(node('exec-cto'));
    expect([await node('exec-cto').getAttribute('data-x'), await node('exec-cto').getAttribute('data-y')]).toEqual([String(after.x), String(after.y)]);
  });

  it('chats with a container-backed node: streamed events, the summary, an attachment', async () => {
    await select('exec-ceo');
    await page.getByRole('button', { name: 'Details' }).click();
    await page.getByLabel('Container URL').fill(agent.url);
    await page.getByRole('button', { name: 'Save details' }).click();
    await visible(page.getByText('Saved.'));
    await expect.poll(async () => (await api<NodeBody>(`/api/org/structures/${structureId}`)).body, { timeout: WAIT }).toBeTruthy();
    await page.getByRole('button', { name: 'Hide details' }).click();

    await page.locator('[data-testid="chat-files"]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('quarterly notes\n') });
    await visible(page.locator('.chat-compose .chip', { hasText: 'notes.txt' }));
    await send('hello brave new world');
    const turn = lastAgent();
    await visible(turn.locator('.ev-complete'));
    expect(await turn.locator('.ev-summary').textContent()).toBe('Echoed 4 word(s) from Acme.');
    expect(await turn.locator('.ev-thought').count()).toBe(1);
    expect(await turn.locator('.ev-thought').getAttribute('open')).toBeNull(); // folded
    expect(await turn.locator('.ev-tool.ev-tool-done .ev-tool-name').textContent()).toBe('word_count');
    expect(await turn.locator('.ev-text').count()).toBe(1);
    expect((await turn.locator('.ev-text').textContent())?.trim()).toBe('You said: hello brave new world');
    expect(await turn.locator('.ev-milestone').textContent()).toContain('Read the request');
    await visible(page.locator('.msg-user').last().getByText('notes.txt'));
    // The tool block opens with its arguments and result.
    await turn.locator('.ev-tool summary').click();
    await visible(turn.locator('.ev-tool-result'));
    expect(await turn.locator('.ev-tool-result').textContent()).toContain('"words": 4');
    await screenshot(page, '04-chat-stream');

    const shelf = await api<{ artifacts: { name: string }[] }>(`/api/org/structures/${structureId}/agents/exec-ceo/artifacts`);
    expect(shelf.body.artifacts.map((artifact) => artifact.name)).toContain('notes.txt');
  });

  it('resumes a running turn after a reload (history + Last-Event-ID), without repeating events', async () => {
    await send('slow 500');
    await visible(lastAgent().locator('.ev-thought'));
    const resumed = page.waitForRequest((request) => request.url().includes('/api/org/chat/runs/') && request.url().endsWith('/events'), { timeout: WAIT });
    await page.reload();
    const request = await resumed;
    // The events the reloaded history already holds (the server replays only what follows).
    expect(request.headers()['last-event-id']).toMatch(/^\d+$/);
    const turn = lastAgent();
    await visible(turn.locator('.ev-complete'));
    expect(await turn.locator('.ev-thought').count()).toBe(1);
    expect(await turn.locator('.ev-tool').count()).toBe(1);
    expect((await turn.locator('.ev-text').textContent())?.trim()).toBe('You said: slow 500');
    expect(await turn.locator('.ev-summary').textContent()).toBe('Echoed 2 word(s) from Acme.');
  });

  it('picks a turn up again when the server drops its stream mid-run: the turn completes once, no event shown twice or lost', async () => {
    // The connection that carries the message's stream, cut from the server's side once
    // the first event is on screen.
    const sockets: Socket[] = [];
    const watch = (request: IncomingMessage) => {
      if (request.method === 'POST' && request.url === '/api/org/chat/message') sockets.push(request.socket);
    };
    t.server.server.on('request', watch);
    // No time bound of its own: the resume request is the event waited for (the test's timeout bounds it).
    const resumed = page.waitForRequest((request) => request.url().includes('/api/org/chat/runs/') && request.url().endsWith('/events'), { timeout: 0 });
    const before = await page.locator('.msg-agent').count();
    try {
      await send('slow 300 one two three');
      // This turn's first event is on screen (not the thought of an earlier turn).
      await visible(page.locator('.msg-agent').nth(before).locator('.ev-thought'));
    } finally {
      t.server.server.off('request', watch);
    }
    expect(sockets).toHaveLength(1);
    sockets[0]!.destroy();
    const request = await resumed;
    // Resumed after the events already shown: the server replays only what follows.
    expect(Number(request.headers()['last-event-id'])).toBeGreaterThanOrEqual(1);
    const turn = page.locator('.msg-agent').nth(before);
    await visible(turn.locator('.ev-complete'));
    expect(await page.locator('.msg-agent').count()).toBe(before + 1);
    expect(await turn.locator('.ev-complete').count()).toBe(1);
    expect(await turn.locator('.ev-thought').count()).toBe(1);
    expect(await turn.locator('.ev-tool').count()).toBe(1);
    expect(await turn.locator('.ev-milestone').count()).toBe(1);
    // Every word once, in order: a repeated or a lost text event would show here.
    expect((await turn.locator('.ev-text').textContent())?.trim()).toBe('You said: slow 300 one two three');
    expect(await turn.locator('.ev-summary').textContent()).toBe('Echoed 5 word(s) from Acme.');
    await turn.locator('.status').filter({ hasText: /^complete$/ }).waitFor({ timeout: 0 });
    expect(await turn.locator('.status').textContent()).toBe('complete');
    expect(await page.locator('.chat .notice-error').count()).toBe(0);
  });

  it('shows the node working while a slow turn runs, and Stop cancels it', async () => {
    await send('slow 1500');
    const stop = page.getByRole('button', { name: 'Stop' });
    await visible(stop);
    await visible(node('exec-ceo').locator('[data-state="working"]'));
    await visible(page.locator('[data-testid="node-state"]', { hasText: 'working' }));
    await screenshot(page, '05-chat-running');
    await stop.click();
    const turn = lastAgent();
    // A neutral note naming who stopped it, not a red error.
    await visible(turn.locator('.ev-stopped'));
    expect(await turn.locator('.ev-stopped').textContent()).toContain('Stopped by you.');
    expect(await turn.locator('.ev-error').count()).toBe(0);
    await stop.waitFor({ state: 'hidden', timeout: WAIT });
    await visible(node('exec-ceo').locator('[data-state="idle"]'));
    await expect.poll(() => turn.locator('.status').textContent(), { timeout: WAIT }).toBe('stopped');
    await screenshot(page, '06-chat-stopped');
  });

  it('links a learned skill to the review queue, where the draft is approved', async () => {
    await send('learn');
    const turn = lastAgent();
    await visible(turn.locator('.ev-complete'));
    // A stream that names the stored draft links to it; one that does not links to the queue.
    await turn.getByRole('link', { name: /Review the draft|See the drafts/ }).click();
    await visible(page.locator('.review-detail h2', { hasText: 'Echo a message' }));
    expect(page.url()).toContain(`#/w/${structureId}/skills/drafts`);
    await visible(page.locator('.review-detail').getByRole('heading', { name: 'Read the message' }));
    await screenshot(page, '07-drafts-review');
    await page.locator('.review-detail').getByRole('button', { name: 'Approve' }).click();
    await visible(page.getByText('Approved echo-a-message'));
    const skill = await api<{ frontmatter: { status: string; learned_by: string } }>(`/api/org/knowledge/skills/echo-a-message`);
    expect(skill.body.frontmatter).toMatchObject({ status: 'complete', learned_by: 'agent' });
    await visible(page.getByText('No draft waits for review.'));
  });

  it('authors a skill in the editor, finds it in the catalog and the search tester, and downloads a run report', async () => {
    await page.getByRole('link', { name: '+ New skill' }).click();
    await page.getByLabel('Name').fill('Reconcile vendor invoices');
    expect(await page.getByLabel('Slug').inputValue()).toBe('reconcile-vendor-invoices');
    await page.getByLabel('Status').selectOption('complete');
    await page.getByLabel('Category').fill('finance');
    await page.getByLabel('Tags (comma separated)').fill('invoices, vendors');
    await page.getByLabel('Summary').fill('Match vendor invoices to purchase orders and flag the gaps.');
    await visible(page.getByRole('note').filter({ hasText: 'requests a person would type' }));
    await page.getByLabel('Triggers (one example request a line)').fill('invoices do not match the purchase orders\nvendor billed us twice');
    await page.getByLabel('Markdown body').fill(
      '## [match-invoices] Step 1: Match invoices to purchase orders\n\nCompare each vendor invoice with its purchase order.\n\n## [flag-gaps] Step 2: Flag the gaps\n\nList invoices without a matching order.\n',
    );
    await visible(page.locator('.editor-preview h2', { hasText: 'Step 2: Flag the gaps' }));
    await screenshot(page, '08-skill-editor');
    await page.getByRole('button', { name: 'Save skill' }).click();
    await visible(page.getByRole('heading', { name: 'Reconcile vendor invoices' }));
    await visible(page.locator('.steps').getByText('Flag the gaps'));
    await screenshot(page, '09-skill-page');

    await page.getByRole('link', { name: 'Catalog' }).click();
    await visible(page.getByRole('link', { name: 'Reconcile vendor invoices' }));
    await page.getByLabel('Category').selectOption('finance');
    await expect.poll(() => page.locator('.table tbody tr').count(), { timeout: WAIT }).toBe(1);
    await screenshot(page, '10-catalog');

    await page.getByRole('link', { name: 'Search tester' }).click();
    await page.getByLabel('Message').fill('reconcile the vendor invoices');
    await page.getByRole('button', { name: 'Search' }).click();
    const first = page.locator('.table tbody tr').first();
    await visible(first);
    expect(await first.locator('a').textContent()).toBe('reconcile-vendor-invoices');
    expect(Number(await first.locator('.score').textContent())).toBeGreaterThan(0);
    expect((await first.locator('.reason').textContent())?.length).toBeGreaterThan(5);
    // What a score means is said beside the results.
    await visible(page.getByText(/The score says how well the message’s words meet the skill’s name/));
    await screenshot(page, '11-search-tester');

    // Why did a skill not match? The explanation names it with the reason it was cut.
    await page.getByLabel('Message').fill('plan the team offsite');
    await page.getByLabel('Why didn’t this skill match? (its slug, optional)').fill('reconcile-vendor-invoices');
    await page.getByRole('button', { name: 'Search' }).click();
    const explained = page.locator('.explain tbody tr', { hasText: 'reconcile-vendor-invoices' });
    await visible(explained);
    expect(await explained.locator('td').nth(1).textContent()).toBe('cut');
    expect(await explained.locator('.reason').first().textContent()).toMatch(/^cut: /);

    // The built-in runtime follows the skill and writes a run report, downloaded with the bearer.
    await page.getByRole('link', { name: 'Canvas' }).click();
    await select('exec-cfo');
    await send('please reconcile the vendor invoices');
    const turn = lastAgent();
    await visible(turn.locator('.ev-complete'));
    const button = turn.locator('.ev-artifacts button');
    expect(await button.count()).toBe(1);
    const downloading = page.waitForEvent('download', { timeout: WAIT });
    await button.click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^run-report-[0-9a-f]{8}\.md$/);
    const text = await readFile((await download.path())!, 'utf8');
    expect(text).toContain('# Run report');
  });

  it('mints a key (token shown once), lists it, and revokes it with confirmation', async () => {
    await page.getByRole('link', { name: 'Keys & members' }).click();
    await visible(page.getByRole('heading', { name: 'MCP keys' }));
    // The select's label text grows with the chosen option once the nodes load: find it by name.
    await page.locator('.mint-form select[name="node"]').selectOption('exec-ceo');
    await page.getByLabel('Label').fill('laptop agent');
    await page.getByRole('button', { name: 'Mint key' }).click();
    const token = await page.getByLabel('New MCP key token').inputValue();
    expect(token).toMatch(/^org_mcp_[A-Za-z0-9]{32,}$/);
    await visible(page.getByText('It is shown only once'));
    const row = page.locator('tr', { hasText: 'laptop agent' });
    await visible(row);
    expect(await row.locator('td').nth(1).textContent()).toBe('exec-ceo');
    expect((await api(`/api/org/whoami`, token)).status).toBe(200);
    await screenshot(page, '12-keys');

    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await row.waitFor({ state: 'detached', timeout: WAIT });
    await visible(page.getByText('Revoked laptop agent.'));
    expect((await api(`/api/org/whoami`, token)).status).toBe(401);
  });

  it('invites a member by e-mail, and the invite link signs the new user in', async () => {
    await page.getByLabel('Invite by e-mail').fill('bob@example.com');
    await page.locator('.share-form select[name="role"]').selectOption('viewer');
    await page.getByRole('button', { name: 'Send invite' }).click();
    await visible(page.getByText('Invite sent to bob@example.com as viewer'));
    await visible(page.locator('tr', { hasText: 'bob@example.com' }));
    await screenshot(page, '13-members');

    const outbox = join(t.home, '.org', 'outbox');
    const files = (await readdir(outbox)).filter((name) => name.endsWith('.eml'));
    const mail = (await Promise.all(files.map((name) => readFile(join(outbox, name), 'utf8')))).join('\n').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const invite = /#invite=(org_inv_[A-Za-z0-9]+)/.exec(mail)?.[1];
    expect(invite).toBeTruthy();

    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const bob = await other.newPage();
      const bobProblems = watchConsole(bob);
      await bob.goto(`${t.url}/#invite=${invite}`);
      // What the invite offers shows before it is accepted; the new user's token is shown once.
      await visible(bob.getByText(/invited bob@example.com to the workspace Acme as viewer/));
      await bob.getByRole('button', { name: 'Accept the invite' }).click();
      await visible(bob.getByText('bob@example.com joined Acme as'));
      expect(bob.url()).not.toContain(invite!);
      expect(await bob.getByRole('textbox', { name: 'Your sign-in token' }).inputValue()).toMatch(/^org_u_/);
      await bob.getByRole('button', { name: 'I have kept it: open Acme' }).click();
      await visible(bob.getByRole('heading', { name: 'Acme' }));
      await visible(bob.locator('.topbar .role-chip', { hasText: 'viewer' }));
      expect(await bob.getByRole('button', { name: '+ Add node' }).count()).toBe(0);
      await screenshot(bob, '14-invite-accepted');
      expect(bobProblems).toEqual([]);
    } finally {
      await other.close();
    }
    await page.reload();
    const role = page.getByRole('combobox', { name: 'Role of bob@example.com' });
    await visible(role);
    expect(await role.inputValue()).toBe('viewer');
  });

  it('deletes nodes (a node with reports says why it cannot go), restores from the archive, adds a node', async () => {
    await page.getByRole('link', { name: 'Canvas' }).click();
    await select('exec-cto');
    // A node with reports: Delete is not offered, and the page says why, in words.
    expect(await page.locator('.node-header').getByRole('button', { name: 'Delete' }).isDisabled()).toBe(true);
    await visible(page.getByText('Chief Technology Officer has 1 report (Engineering Lead): give them another manager under Details before deleting it.'));

    await select('exec-eng-lead');
    await page.locator('.node-header').getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Engineering Lead?' });
    await dialog.getByRole('button', { name: 'Delete node' }).click();
    await node('exec-eng-lead').waitFor({ state: 'detached', timeout: WAIT });
    expect(await page.locator('[data-role-id]').count()).toBe(6);
    await visible(page.locator('.toast', { hasText: 'Engineering Lead moved to the archive.' }).getByRole('button', { name: 'Undo' }));

    await page.getByRole('button', { name: 'Archive' }).click();
    const archive = page.getByRole('dialog', { name: 'Archived nodes' });
    const row = archive.locator('tr', { hasText: 'exec-eng-lead' });
    await visible(row);
    await screenshot(page, '15-archive');
    await row.getByRole('button', { name: 'Restore' }).click();
    await visible(archive.getByText('Restored exec-eng-lead'));
    await archive.getByRole('button', { name: 'Close' }).click();
    await visible(node('exec-eng-lead'));

    await select('exec-ceo');
    await page.getByRole('button', { name: '+ Add node' }).click();
    const add = page.getByRole('dialog', { name: 'Add a node' });
    await add.getByLabel('Role id').fill('exec-cpo');
    await add.getByLabel('Label').fill('Chief Product Officer');
    await add.getByRole('button', { name: 'Add node' }).click();
    await visible(node('exec-cpo'));
    await visible(page.locator('.node-header h2', { hasText: 'Chief Product Officer' }));
    expect(await page.locator('[data-role-id]').count()).toBe(8);
  });

  it('shows the workspace log of decisions and milestones', async () => {
    await page.getByRole('link', { name: 'Log' }).click();
    await visible(page.getByRole('heading', { name: 'Workspace log' }));
    await visible(page.locator('.timeline-item', { hasText: 'Read the request' }).first());
    expect(await page.locator('.timeline-item').count()).toBeGreaterThanOrEqual(3);
    await screenshot(page, '16-log');
  });

  it('stays usable on a smaller laptop screen (no horizontal overflow)', async () => {
    await page.setViewportSize({ width: 1024, height: 640 });
    const overflow = () => page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    // Below 1,100 px the sections are in the top bar's menu.
    const section = async (name: string) => {
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('link', { name }).click();
    };
    await section('Canvas');
    await select('exec-ceo');
    expect(await overflow()).toBe(0);
    await visible(page.locator('#chat-input'));
    await screenshot(page, '17-laptop-canvas');
    await section('Skills');
    await visible(page.getByRole('link', { name: 'Reconcile vendor invoices' }));
    expect(await overflow()).toBe(0);
    await screenshot(page, '18-laptop-skills');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no console errors beyond the failed requests it provoked on purpose', () => {
    const unexpected = problems.filter((problem) => !EXPECTED.some((expected) => expected.text.test(problem.text) && expected.url.test(problem.url ?? '')));
    expect(unexpected).toEqual([]);
    expect(problems.length).toBeLessThanOrEqual(EXPECTED.length);
  });
});
