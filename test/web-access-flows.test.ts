/**
 * Signing in and who may do what, in a real browser (chromium, the built UI, a listening
 * server): an invite names the workspace and role before it is accepted, and a new user
 * is shown their token once and can sign in with it again; an existing user signs in with
 * their own token; a `#token=` link never replaces a signed-in browser's token without
 * asking; an owner is asked before changing their own role and the page shows the
 * server's role; an unknown workspace address says so; owners rename, delete and restore
 * a workspace, and an invite to a deleted one says so; a browser signed out by a revoked
 * token keeps the unsent message and the page.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_ROOT } from '../src/server/routes/web.js';
import { browserProfiles, type BrowserProfiles, openSignedIn, screenshot } from './helpers/browser.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { inviteTokenFor } from './helpers/outbox.js';

/**
 * Refusals the tests provoke on purpose, which chromium reports on the console: the
 * revoked token (401), unknown workspace addresses (400 for one that is no id, 404), and
 * the members list read once more right after the owner became operator (403), and the
 * stale Undo of a node already restored (409), and invites to a deleted workspace (410).
 */
const EXPECTED = [/status of 401/, /status of 404/, /status of 400/, /status of 403/, /status of 409/, /status of 410/];

describe('signing in, invites and roles in the web UI', () => {
  let t: TestInstance;
  let profiles: BrowserProfiles;
  let owner: { token: string; id: string };
  let structureId = '';
  const PHONE = { width: 390, height: 844 };

  const visible = (locator: Locator) => locator.waitFor({ state: 'visible', timeout: 0 });
  /** A fresh browser profile (its own storage) with one page. */
  const fresh = (viewport = { width: 1280, height: 800 }) => profiles.open({ viewport });
  const share = async (email: string, role: string) => {
    const response = await fetch(`${t.url}/api/org/structures/${structureId}/share`, { method: 'POST', headers: { ...t.auth(owner.token), 'content-type': 'application/json' }, body: JSON.stringify({ email, role }) });
    expect(response.status).toBe(200);
    return inviteTokenFor(t.home, email);
  };

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_WEB_ROOT, 'index.html'))) throw new Error('the web UI is not built: run `npm run build` first');
    t = await startInstance({ listen: true });
    owner = await t.createUser('olivia@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Acme')).id;
    profiles = await browserProfiles();
  }, 60_000);

  afterAll(async () => {
    await profiles?.close();
    await t?.close();
  });

  it('an invite names the workspace, role and sender first; a new user is shown their token once and signs in with it again', async () => {
    const invite = await share('nora@example.com', 'operator');
    const page = await fresh();
    await page.goto(`${t.url}/#invite=${invite}`);
    await visible(page.getByText('olivia@example.com invited nora@example.com to the workspace Acme as operator.'));
    await visible(page.getByText(/Accepting creates a user for nora@example.com/));
    await screenshot(page, 'access-01-invite');
    await page.getByRole('button', { name: 'Accept the invite' }).click();
    const shown = page.getByRole('textbox', { name: 'Your sign-in token' });
    await visible(shown);
    const token = await shown.inputValue();
    expect(token).toMatch(/^org_u_[0-9A-Za-z]{32,}$/);
    await page.getByRole('button', { name: 'I have kept it: open Acme' }).click();
    await visible(page.getByRole('heading', { name: 'Acme', exact: true }));
    expect(page.url()).toContain(`#/w/${structureId}`);

    // Signed out, the shown token signs in again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Your token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await visible(page.getByText('nora@example.com'));
  });

  it('an existing user, in a browser signed in as someone else, is warned, then signs in with their own token (another one is refused)', async () => {
    const peter = await t.createUser('peter@example.com');
    const invite = await share('peter@example.com', 'viewer');
    const page = await fresh();
    await openSignedIn(page, t.url, owner.token);
    await page.goto(`${t.url}/#invite=${invite}`);
    await visible(page.getByText(/peter@example.com already has a user here/));
    await visible(page.getByText('This browser is signed in as olivia@example.com. The invite is for peter@example.com: accepting gives peter@example.com access, not olivia@example.com.'));
    await page.getByRole('button', { name: 'Accept the invite' }).click();
    const field = page.getByLabel('Token of peter@example.com');
    await field.fill(owner.token);
    await page.getByRole('button', { name: 'Sign in and open Acme' }).click();
    await visible(page.getByText('That token is olivia@example.com’s, not peter@example.com’s.'));
    await field.fill(peter.token);
    await page.getByRole('button', { name: 'Sign in and open Acme' }).click();
    await visible(page.getByRole('heading', { name: 'Acme', exact: true }));
    expect(await page.evaluate('localStorage.getItem("org.token")')).toBe(peter.token);
  });

  it('a #token= link never replaces a signed-in browser’s token without asking: Stay keeps it, a refused link keeps it, Switch replaces it', async () => {
    const quinn = await t.createUser('quinn@example.com');
    const page = await fresh();
    await openSignedIn(page, t.url, owner.token);

    // Another account's link: asked, named; staying keeps the token and forgets the link's.
    await page.goto(`${t.url}/#token=${quinn.token}`);
    await visible(page.getByRole('heading', { name: 'Switch account?' }));
    await visible(page.getByRole('button', { name: 'Switch to quinn@example.com' }));
    expect(page.url()).not.toContain(quinn.token);
    expect(await page.evaluate('localStorage.getItem("org.token")')).toBe(owner.token);
    await screenshot(page, 'access-02-switch-account');
    await page.getByRole('button', { name: 'Stay signed in as olivia@example.com' }).click();
    await visible(page.getByRole('heading', { name: 'Workspaces', exact: true }));
    await visible(page.getByText('olivia@example.com'));
    expect(await page.evaluate('localStorage.getItem("org.token")')).toBe(owner.token);

    // A link whose token the server refuses: nothing to switch to, and the session stays.
    await page.goto(`${t.url}/#token=org_u_not-a-real-token-00000000000000000000`);
    await visible(page.getByRole('heading', { name: 'Switch account?' }));
    expect(await page.getByRole('button', { name: /^Switch/ }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: /^Stay signed in/ }).click();
    await visible(page.getByText('olivia@example.com'));
    expect(await page.evaluate('localStorage.getItem("org.token")')).toBe(owner.token);

    // Switching is a choice.
    await page.goto(`${t.url}/#token=${quinn.token}`);
    await page.getByRole('button', { name: 'Switch to quinn@example.com' }).click();
    await visible(page.getByText('quinn@example.com'));
    expect(await page.evaluate('localStorage.getItem("org.token")')).toBe(quinn.token);
  });

  it('asks an owner before changing their own role, offers no Undo, and then shows the role the server has', async () => {
    const rita = await t.createUser('rita@example.com');
    const id = (await t.createStructure(rita.token, 'blank', 'Rita’s')).id;
    await t.app.members.set(id, owner.id, 'owner');
    const page = await fresh();
    await openSignedIn(page, t.url, rita.token);
    await page.goto(`${t.url}/#/w/${id}/access`);
    const mine = page.getByLabel('Role of rita@example.com');
    await visible(mine);
    await mine.selectOption('viewer');
    const dialog = page.getByRole('dialog', { name: 'Change your own role to viewer?' });
    await visible(dialog);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => mine.inputValue()).toBe('owner');
    expect((await t.app.members.list(id)).find((member) => member.user_id === rita.id)?.role).toBe('owner');

    await mine.selectOption('operator');
    await page.getByRole('button', { name: 'Become operator' }).click();
    await visible(page.getByText('You are now operator of this workspace.'));
    expect((await t.app.members.list(id)).find((member) => member.user_id === rita.id)?.role).toBe('operator');
    // No Undo (an operator may not change it back), and the page shows the server's role.
    expect(await page.locator('.toast', { hasText: 'You are now operator' }).getByRole('button', { name: 'Undo' }).count()).toBe(0);
    await visible(page.getByText('Only owners of this workspace can manage MCP keys and members. Your role is operator.'));
    await visible(page.locator('.topbar .role-chip', { hasText: 'operator' }));
  });

  it('an unknown workspace address shows a "workspace not found" page, not a form error', async () => {
    const page = await fresh();
    await openSignedIn(page, t.url, owner.token);
    for (const address of ['/w/not-a-workspace', '/w/7d3c1a8e-2b4f-4c6d-9e0a-1b2c3d4e5f60/skills']) {
      await page.goto(`${t.url}/#${address}`);
      await visible(page.getByRole('heading', { name: 'Workspace not found' }));
      expect(await page.title()).toBe('Workspace not found · org');
      expect(await page.locator('.notice-error').count()).toBe(0);
    }
  });

  it('an owner renames a workspace, deletes it into the archive and restores it from the workspaces page', async () => {
    const id = (await t.createStructure(owner.token, 'personal', 'Scratch')).id;
    const page = await fresh();
    await openSignedIn(page, t.url, owner.token);
    await page.goto(`${t.url}/#/w/${id}/access`);
    const name = page.locator('#workspace-title').locator('..').getByLabel('Name');
    await name.fill('Sketches');
    await page.getByRole('button', { name: 'Rename' }).click();
    await visible(page.getByText('Renamed to Sketches.'));
    await page.getByRole('button', { name: 'Delete workspace' }).click();
    await page.getByRole('dialog', { name: 'Delete Sketches?' }).getByRole('button', { name: 'Delete workspace' }).click();
    await visible(page.getByRole('heading', { name: 'Workspaces', exact: true }));
    expect((await fetch(`${t.url}/api/org/structures/${id}`, { headers: t.auth(owner.token) })).status).toBe(404);
    await page.getByRole('button', { name: 'Restore Sketches' }).click();
    await visible(page.getByRole('link', { name: 'Sketches' }));
    expect((await fetch(`${t.url}/api/org/structures/${id}`, { headers: t.auth(owner.token) })).status).toBe(200);
  });

  it('an invite to a workspace deleted into the archive says so and offers no acceptance, read before or after the deletion', async () => {
    const id = (await t.createStructure(owner.token, 'personal', 'Side project')).id;
    const shareTo = async (email: string) => {
      const response = await fetch(`${t.url}/api/org/structures/${id}/share`, { method: 'POST', headers: { ...t.auth(owner.token), 'content-type': 'application/json' }, body: JSON.stringify({ email, role: 'operator' }) });
      expect(response.status).toBe(200);
      return inviteTokenFor(t.home, email);
    };
    const early = await shareTo('early@example.com');
    const late = await shareTo('late@example.com');
    const reason = 'This invite cannot be used. The workspace "Side project" this invite is for was deleted; the invite works again if an owner of it restores the workspace.';

    // Read before the deletion, accepted after it.
    const before = await fresh();
    await before.goto(`${t.url}/#invite=${early}`);
    await visible(before.getByText('olivia@example.com invited early@example.com to the workspace Side project as operator.'));
    expect((await fetch(`${t.url}/api/org/structures/${id}`, { method: 'DELETE', headers: t.auth(owner.token) })).status).toBe(204);
    await before.getByRole('button', { name: 'Accept the invite' }).click();
    await visible(before.getByRole('alert').filter({ hasText: reason }));
    expect(await before.getByRole('button', { name: 'Accept the invite' }).count()).toBe(0);
    expect(await t.app.users.byEmail('early@example.com')).toBeUndefined();

    // Opened after the deletion: the reason instead of the offer.
    const after = await fresh(PHONE);
    await after.goto(`${t.url}/#invite=${late}`);
    await visible(after.getByRole('alert').filter({ hasText: reason }));
    await visible(after.getByText('Ask the person who invited you, or an owner of the workspace, for a new invite.'));
    expect(await after.getByRole('button', { name: 'Accept the invite' }).count()).toBe(0);
    expect(await after.getByText('invited late@example.com').count()).toBe(0);
    await screenshot(after, 'access-invite-archived');
  });

  it('a browser signed out by a revoked token keeps the page it was on and the unsent message', async () => {
    const sam = await t.createUser('sam@example.com');
    await t.app.members.set(structureId, sam.id, 'operator');
    const page = await fresh();
    await openSignedIn(page, t.url, sam.token);
    await page.goto(`${t.url}/#/w/${structureId}/n/exec-cfo`);
    await page.locator('#chat-input').fill('Draft of the Q3 memo, not sent yet');
    // The token is replaced elsewhere: the next request of this page is refused.
    const rotated = await fetch(`${t.url}/api/org/users/me/token`, { method: 'POST', headers: t.auth(sam.token) });
    const next = ((await rotated.json()) as { token: string }).token;
    await visible(page.getByRole('button', { name: 'Sign in' }));
    await page.getByLabel('Your token').fill(next);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await visible(page.locator('#chat-input'));
    expect(page.url()).toContain(`#/w/${structureId}/n/exec-cfo`);
    expect(await page.locator('#chat-input').inputValue()).toBe('Draft of the Q3 memo, not sent yet');
  });

  it('tells a viewer at once that an editor route needs the operator role, instead of refusing on Save', async () => {
    const victor = await t.createUser('victor@example.com');
    await t.app.members.set(structureId, victor.id, 'viewer');
    const page = await fresh();
    await openSignedIn(page, t.url, victor.token);
    for (const path of ['skills/new', 'skills/s/some-skill/edit']) {
      await page.goto(`${t.url}/#/w/${structureId}/${path}`);
      await visible(page.getByText(/Your role in this workspace is viewer: you can read its skills, and writing them needs the operator or owner role/));
      expect(await page.getByRole('button', { name: 'Save skill' }).count()).toBe(0);
    }
  });

  it('a stale Undo (the node was already restored elsewhere) says so instead of failing', async () => {
    const id = (await t.createStructure(owner.token, 'exec-team', 'Undo')).id;
    const page = await fresh();
    await openSignedIn(page, t.url, owner.token);
    await page.goto(`${t.url}/#/w/${id}/n/exec-eng-lead`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete Engineering Lead?' }).getByRole('button', { name: 'Delete node' }).click();
    const toast = page.locator('.toast', { hasText: 'Engineering Lead moved to the archive.' });
    await visible(toast);
    // Restored elsewhere (another tab, the CLI) before Undo is clicked.
    expect((await fetch(`${t.url}/api/org/structures/${id}/agents/exec-eng-lead/restore`, { method: 'POST', headers: t.auth(owner.token) })).status).toBe(201);
    await toast.getByRole('button', { name: 'Undo' }).click();
    await visible(page.locator('.toast', { hasText: 'Nothing to undo: that was already put back or changed elsewhere.' }));
    expect(await page.locator('.toast-error').count()).toBe(0);
  });

  it('logged no console errors but the refusals it provoked', () => {
    expect(profiles.problems.filter((problem) => !EXPECTED.some((pattern) => pattern.test(problem.text)))).toEqual([]);
  });
});
