/**
 * The chat in a real browser (chromium, the built UI, a listening server): every human
 * message names its author (never "You" for someone else's words); the node shows
 * working as soon as a message is accepted and idle when the turn ends; a connection lost
 * mid-turn never puts the sent message back in the box, and the turn is picked up again
 * once the server answers; a page whose load failed recovers by itself; agent markdown
 * (links, quotes, inline code, code blocks with Copy, tables, compact tool results) and
 * the message box reached in one step from the keyboard; each finished reply is
 * announced; and axe finds nothing serious in such a chat.
 */
import { existsSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventInput } from '../src/core/chat/types.js';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { axeFindings } from './helpers/axe.js';
import { openBrowserSession, openSignedIn, screenshot, type BrowserProblem } from './helpers/browser.js';
import { dispatchRuntime } from './helpers/chat.js';
import { createGatedRuntime } from './helpers/gated-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';

/** A reply with everything agent markdown holds, and a tool whose result is an object. */
const RICH: EventInput[] = [
  { type: 'thought', content: 'Looking at the quarter: revenue, costs and the runway.' },
  { type: 'tool_call', content: { tool: 'ledger', args: { quarter: 'Q3', accounts: ['4000', '4100', '5000'], currency: 'EUR' } } },
  { type: 'tool_result', content: { tool: 'ledger', result: { revenue: 120000, costs: 80000, months: [1, 2, 3], notes: 'audited' } } },
  {
    type: 'text',
    content:
      'See the [ledger guide](https://example.com/ledger) and run `org skills list`.\n\n> Cash is king.\n\n| month | revenue |\n|---|---|\n| July | 40k |\n\n| cost | amount |\n|---|---|\n| rent | 5k |\n\n```sh\norg chat exec-cfo "close the books"\n```\n',
  },
  { type: 'complete', content: { summary: 'Quarter closed', artifacts: [] } },
];

/** A computed style of the element a locator finds (the page's own `getComputedStyle`). */
const styleOf = (locator: Locator, property: string) =>
  locator.evaluate((element, name) => (globalThis as unknown as { getComputedStyle(target: unknown): Record<string, string> }).getComputedStyle(element)[name], property);

/** Refusals and drops the tests provoke on purpose (the cut stream, the requests refused while "offline"). */
const EXPECTED = [/ERR_INCOMPLETE_CHUNKED_ENCODING/, /ERR_FAILED/, /ERR_CONNECTION_REFUSED/, /ERR_INTERNET_DISCONNECTED/];

describe('the chat, third pass', () => {
  let t: TestInstance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: BrowserProblem[];
  let owner: { token: string; id: string };
  let olga: { token: string; id: string };
  let structureId = '';
  const gated = createGatedRuntime();

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });
  const send = async (text: string) => {
    await page.locator('#chat-input').fill(text);
    await page.locator('#chat-input').press('Enter');
  };
  const sync = async (token: string, roleId: string, message: string) => {
    const response = await fetch(`${t.url}/api/org/chat/message/sync`, {
      method: 'POST',
      headers: { ...t.auth(token), 'content-type': 'application/json' },
      body: JSON.stringify({ structure_id: structureId, role_id: roleId, message }),
    });
    expect(response.status).toBe(200);
  };
  /** Refuses every API request of the page (a dropped connection, a server gone) until `restore`. */
  const goOffline = async () => {
    let refused = 0;
    let onRefused: () => void = () => undefined;
    await page.route('**/api/org/**', (route) => {
      refused++;
      onRefused();
      return route.abort('connectionrefused');
    });
    return {
      refusedAtLeast: (n: number) => new Promise<void>((resolve) => (onRefused = () => refused >= n && resolve())),
      restore: () => page.unroute('**/api/org/**'),
    };
  };

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true, deps: { runtime: () => dispatchRuntime({ rich: createScriptedRuntime(RICH) }, gated.runtime) } });
    owner = await t.createUser('owen@example.com');
    olga = await t.createUser('olga@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Acme')).id;
    await t.app.members.set(structureId, olga.id, 'operator');
    ({ browser, context, page, problems } = await openBrowserSession({ viewport: { width: 1440, height: 900 } }));
    context.setDefaultTimeout(15_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await openSignedIn(page, t.url, owner.token);
  }, 60_000);

  afterAll(async () => {
    gated.release();
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it('names the author of every human message: "You" only for the reader’s own, a node key by its label', async () => {
    await sync(olga.token, 'exec-coo', 'plan the offsite, from olga');
    // A node's MCP key speaks for its agent: the key's label is the author.
    const minted = await fetch(`${t.url}/api/org/structures/${structureId}/agents/exec-coo/mcp-key`, {
      method: 'POST',
      headers: { ...t.auth(owner.token), 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'laptop agent' }),
    });
    expect(minted.status).toBeLessThan(300);
    await sync(((await minted.json()) as { token: string }).token, 'exec-coo', 'plan the offsite, from the laptop agent');
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-coo`);
    await send('plan the offsite, from owen');
    await visible(page.locator('.msg-user', { hasText: 'from owen' }));
    await expect.poll(() => page.locator('.msg-agent .ev-complete').count()).toBe(3);
    const who = (text: string) => page.locator('.msg-user', { hasText: text }).locator('.msg-who').textContent();
    expect(await who('from owen')).toBe('You');
    expect(await who('from olga')).toBe('olga@example.com');
    expect(await who('from the laptop agent')).toBe('Key “laptop agent”');

    // The viewer sees both as who wrote them, neither as "You".
    const viewerPage = await context.browser()!.newContext().then((other) => other.newPage());
    const vera = (await fetch(`${t.url}/api/org/users`, { method: 'POST', headers: { ...t.auth(), 'content-type': 'application/json' }, body: JSON.stringify({ email: 'vera2@example.com' }) }).then((r) => r.json())) as { token: string; user: { id: string } };
    await t.app.members.set(structureId, vera.user.id, 'viewer');
    await openSignedIn(viewerPage, t.url, vera.token);
    await viewerPage.goto(`${t.url}/#/w/${structureId}/n/exec-coo`);
    await visible(viewerPage.locator('.msg-user', { hasText: 'from owen' }));
    expect(await viewerPage.locator('.msg-user', { hasText: 'from owen' }).locator('.msg-who').textContent()).toBe('owen@example.com');
    expect(await viewerPage.locator('.msg-user', { hasText: 'from olga' }).locator('.msg-who').textContent()).toBe('olga@example.com');
    await viewerPage.context().close();
  });

  it('shows the node working as soon as the message is accepted (with the structure’s polls held back) and idle once the turn ends', async () => {
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-cmo`);
    await visible(page.locator('#chat-input'));
    await visible(page.locator('[data-testid="node-state"]', { hasText: 'idle' }));
    // Polls of the structure wait until the end: a state seen meanwhile comes from the send.
    let hold: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (hold = resolve));
    await page.route(`**/api/org/structures/${structureId}`, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await send('gated: write the launch plan');
      await gated.waiting(1);
      await visible(page.locator('[data-testid="node-state"]', { hasText: 'working' }));
      await visible(page.locator('[data-role-id="exec-cmo"] [data-state="working"]'));
    } finally {
      hold();
      await page.unroute(`**/api/org/structures/${structureId}`);
    }
    gated.release();
    await visible(page.locator('.msg-agent').last().locator('.ev-complete'));
    await visible(page.locator('[data-testid="node-state"]', { hasText: 'idle' }));
  });

  it('never offers a sent message again when the connection drops mid-turn, and picks the turn up once the server answers', async () => {
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-cto`);
    await visible(page.locator('#chat-input'));
    const sockets: Socket[] = [];
    const watch = (request: IncomingMessage) => {
      if (request.method === 'POST' && request.url === '/api/org/chat/message') sockets.push(request.socket);
    };
    t.server.server.on('request', watch);
    try {
      await send('gated: migrate the database');
      await gated.waiting(1);
      await visible(page.locator('.msg-agent').last().locator('.ev-thought'));
    } finally {
      t.server.server.off('request', watch);
    }
    // The server is gone for the page: the stream is cut and every request refused.
    const offline = await goOffline();
    sockets[0]!.destroy();
    await visible(page.getByText(/The connection to the running turn was lost/));
    await offline.refusedAtLeast(5);
    expect(await page.locator('#chat-input').inputValue()).toBe('');
    expect(await page.locator('.msg-user', { hasText: 'migrate the database' }).count()).toBe(1);
    await screenshot(page, 'chat-pass-01-connection-lost');

    // Back: the turn is picked up again and ends once; the message is in the history once.
    gated.release();
    await offline.restore();
    const turn = page.locator('.msg-agent').last();
    await visible(turn.locator('.ev-complete'));
    expect(await turn.locator('.ev-complete').count()).toBe(1);
    expect(await page.locator('.msg-user', { hasText: 'migrate the database' }).count()).toBe(1);
    expect(await page.locator('#chat-input').inputValue()).toBe('');
    await page.getByText(/The connection to the running turn was lost/).waitFor({ state: 'detached' });
  });

  it('a page whose load failed while the server was unreachable recovers by itself (the skills catalog)', async () => {
    const offline = await goOffline();
    await page.evaluate(`location.hash = '#/w/${structureId}/skills'`);
    const failed = page.locator('.notice-error', { hasText: 'The server could not be reached.' }).first();
    await failed.waitFor({ state: 'visible', timeout: 15_000 });
    await screenshot(page, 'chat-pass-03-catalog-unreachable');
    await offline.restore();
    // The home has no skill yet: the catalog says so once it has loaded.
    await page.getByText('No skill matches these filters.').waitFor({ state: 'visible', timeout: 15_000 });
    expect(await page.locator('.notice-error', { hasText: 'The server could not be reached.' }).count()).toBe(0);
  });

  it('renders agent markdown readably: underlined links, quotes, inline code, code blocks with Copy, tables named by their headers, compact tool results', async () => {
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-cfo`);
    await visible(page.locator('#chat-input'));
    await send('rich close the quarter');
    const turn = page.locator('.msg-agent').last();
    await visible(turn.locator('.ev-complete'));
    const link = turn.getByRole('link', { name: 'ledger guide' });
    expect(await styleOf(link, 'textDecorationLine')).toBe('underline');
    expect(await styleOf(turn.locator('blockquote'), 'borderLeftStyle')).toBe('solid');
    expect(await styleOf(turn.locator('p code'), 'backgroundColor')).not.toBe('rgba(0, 0, 0, 0)');
    await visible(turn.getByRole('group', { name: 'Table: month, revenue' }));
    await visible(turn.getByRole('group', { name: 'Table: cost, amount' }));
    await turn.locator('.code-block').getByRole('button', { name: 'Copy' }).click();
    await visible(turn.locator('.code-block').getByRole('button', { name: 'Copied' }));
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('org chat exec-cfo "close the books"');
    // The tool: arguments and result compact (short arrays on one line), in focusable boxes.
    await turn.locator('.ev-tool summary').click();
    const result = turn.locator('[aria-label="Result of ledger"]');
    expect(await result.textContent()).toContain('"months": [1, 2, 3]');
    expect(await result.getAttribute('tabindex')).toBe('0');
    // An open thought shows its text once.
    await turn.locator('.ev-thought summary').click();
    expect(await turn.locator('.ev-thought').innerText()).not.toMatch(/Looking at the quarter[\s\S]*Looking at the quarter/);
    expect(await turn.locator('.ev-preview').isVisible()).toBe(false);
    await screenshot(page, 'chat-pass-02-markdown');
  });

  it('announces each finished reply to screen readers', async () => {
    const announcer = page.getByTestId('chat-announcer');
    await send('rich and again');
    await expect.poll(() => announcer.textContent()).toBe('Chief Financial Officer replied: Quarter closed');
    expect(await announcer.getAttribute('aria-live')).toBe('polite');
  });

  it('reaches the message box from anywhere with Alt+M or the skip link, and shows a focus ring on a canvas node', async () => {
    // A canvas node focused from the keyboard has a visible ring.
    const card = page.locator('[data-role-id="exec-ceo"]');
    await card.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const ring = (await page.evaluate(
      "(() => { const e = document.activeElement; const s = getComputedStyle(e); return { role: e.getAttribute('data-role-id'), outline: s.outlineStyle, width: s.outlineWidth }; })()",
    )) as { role: string | null; outline: string; width: string };
    expect(ring.role).not.toBeNull();
    expect(ring.outline).toBe('solid');
    expect(parseFloat(ring.width)).toBeGreaterThanOrEqual(2);

    await page.keyboard.press('Alt+KeyM');
    expect(await page.evaluate('document.activeElement?.id')).toBe('chat-input');

    // From the top of the page: the stop after "Skip to content" is the skip link to the message box.
    await page.locator('.skip-link').first().focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to the message box (Alt+M)');
    await page.keyboard.press('Enter');
    expect(await page.evaluate('document.activeElement?.id')).toBe('chat-input');
  });

  it('has no serious or critical axe finding in a chat with links, tables, code and tool results, light and dark', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.locator('.msg-agent').last().locator('.ev-tool summary').click();
      expect(await axeFindings(page), scheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('logged no console errors but the drops it provoked', () => {
    expect(problems.filter((problem) => !EXPECTED.some((pattern) => pattern.test(problem.text)))).toEqual([]);
  });
});
