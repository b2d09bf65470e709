/**
 * The first hour in a real terminal, out of the box: `org serve` on a new home (the
 * bundled library copied in, no LLM, no container), then in a pseudo-terminal a request
 * no skill covers, the local runtime asking to be taught, a `/teach` reply that becomes
 * a draft, the drafts queue approving it with a burst of keys, and the same request
 * following the approved skill. Also: a fast key burst in a pick list lands on the
 * entry it moved to, and `org … | head` under `pipefail` ends quietly.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { ensureBuilt, ORG_BIN, startServe, type ServeChild } from './helpers/child.js';
import { KEYS, startOrgTerminal, startTerminal, type TerminalSession } from './helpers/pty.js';

const ADMIN = 'pty-first-hour-admin-token-0123456789';
const REQUEST = 'water the office plants';
const SLUG = 'water-the-office-plants';

describe('the first hour in a real terminal', () => {
  let home: string;
  let serve: ServeChild | undefined;
  let client: OrgClient;
  let structureId: string;
  let env: Record<string, string>;
  const terms: TerminalSession[] = [];
  const open = (args: string[]) => {
    // Every wait is on the screen; only the test's timeout bounds one that never comes.
    const term = startOrgTerminal(args, { env, cols: 120, rows: 50 });
    terms.push(term);
    return term;
  };

  beforeAll(async () => {
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-pty-first-hour-'));
    serve = await startServe({ home: join(home, 'home'), env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') }, args: ['--no-demo'] });
    client = new OrgClient({ url: serve.url, token: ADMIN });
    structureId = (await client.createStructure('Acme', 'exec-team')).id;
    env = { ORG_URL: serve.url, ORG_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') };
  }, 120_000);

  afterAll(async () => {
    for (const term of terms) await term.close();
    await serve?.stop('SIGTERM');
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('is taught a request no skill covers, the draft is approved in the queue, and the request then follows it', { timeout: 240_000 }, async () => {
    expect(serve!.stdout.some((line) => line.startsWith('org: new home: copied '))).toBe(true);

    const chat = open(['chat', 'Acme', 'exec-coo']);
    await chat.waitForText('exec-coo ›', 'the chat prompt');
    chat.type(REQUEST);
    await chat.waitForText(`exec-coo › ${REQUEST}`, 'the typed request');
    chat.press('Enter');
    await chat.waitForText(`No skill covers "${REQUEST}" yet`, 'the question asking to be taught');

    chat.type('/teach Check which plants are dry; Water each one with a cup of water; Note the date in the plant log');
    await chat.waitForText('Note the date in the plant log', 'the typed lesson');
    chat.press('Enter');
    const taught = await chat.waitForText(`Learned "Water the office plants" (3 step(s))`, 'the lesson summary');
    expect(taught).toContain(`learned a draft skill: ${SLUG}`);
    expect((await client.getSkill(SLUG)).frontmatter.status).toBe('draft');
    chat.press('Ctrl-C');
    expect(await chat.exited).toEqual({ exitCode: 0 });

    // The queue lists drafts by slug: the bundled one first, then the one just taught.
    // "j" then "a" in one burst approves the second entry, not the first.
    const order = (await client.listSkills({ structure_id: structureId, status: ['draft'] })).skills.map((skill) => skill.slug);
    const index = order.indexOf(SLUG);
    expect(index).toBeGreaterThan(0);
    const queue = open(['drafts', 'Acme']);
    await queue.waitForText('a approve', 'the review queue');
    // The screen is drawn before the keyboard is read: a key whose effect shows proves it is read.
    queue.type('j');
    await queue.waitFor((text) => /❯\s+water-the-office-plants/.test(text), 'the cursor on the second draft');
    queue.type('k');
    await queue.waitFor((text) => /❯\s+reconcile-corporate-card-expenses/.test(text.slice(text.lastIndexOf('Drafts ·'))), 'the cursor back on the first draft');
    queue.type(`${'j'.repeat(index)}a`);
    await queue.waitForText(`✓ ${SLUG}`, 'the approval mark');
    expect((await client.getSkill(SLUG)).frontmatter.status).toBe('complete');
    expect((await client.getSkill(order[0]!)).frontmatter.status).toBe('draft');
    queue.type('q');
    expect(await queue.exited).toEqual({ exitCode: 0 });

    const again = open(['chat', 'Acme', 'exec-coo', '-m', REQUEST]);
    const followed = await again.waitForText('✔ Followed "Water the office plants" through 3 step(s)', 'the approved skill followed');
    expect(followed).toContain('Check which plants are dry');
    expect(await again.exited).toEqual({ exitCode: 0 });
    expect(await readFile(join(home, 'home', 'skills', structureId, `${SLUG}.md`), 'utf8')).toContain('status: complete');
  });

  it('the drafts queue restores a rejected draft with u at once, though the cursor has moved on to the next draft', { timeout: 240_000 }, async () => {
    const slug = 'aaa-tidy-the-desk';
    await client.saveSkill({ structure_id: structureId, slug, frontmatter: { type: 'skill', name: 'Tidy the desk', status: 'draft', structure_id: structureId }, body: '## [a] Step 1: Clear the desk\n' });
    const queue = open(['drafts', 'Acme']);
    await queue.waitFor((text) => /❯\s+aaa-tidy-the-desk/.test(text), 'the cursor on the new draft, first by slug');
    queue.type('r');
    await queue.waitForText(`rejected ${slug} (deleted; press u to restore it)`, 'the rejection and its hint');
    // The reject moved the cursor to the next draft to review; u still restores the one just rejected.
    await queue.waitFor((text) => !/❯\s+aaa-tidy-the-desk/.test(text.slice(text.lastIndexOf('Drafts ·'))), 'the cursor on the next draft');
    queue.type('u');
    await queue.waitForText(`restored ${slug}`, 'the restore');
    await queue.waitFor((text) => /❯\s+aaa-tidy-the-desk/.test(text.slice(text.lastIndexOf('Drafts ·'))), 'the cursor back on the restored draft');
    expect((await client.getSkill(slug, structureId)).frontmatter.status).toBe('draft');
    queue.type('q');
    expect(await queue.exited).toEqual({ exitCode: 0 });
  });

  it('types a lesson over several lines: /help lists /teach, /teach alone starts a lesson for the pending request, Enter and Alt+Enter start lines, an empty line sends', { timeout: 240_000 }, async () => {
    const chat = open(['chat', 'Acme', 'exec-cfo']);
    await chat.waitForText('exec-cfo ›', 'the chat prompt');
    chat.type('/help');
    await chat.waitForText('exec-cfo › /help', 'the typed command');
    chat.press('Enter');
    await chat.waitForText('/teach STEP; STEP … teaches the request the node asked about', 'the help naming /teach');
    chat.type('restock the snack cupboard');
    await chat.waitForText('exec-cfo › restock the snack cupboard', 'the typed request');
    chat.press('Enter');
    await chat.waitForText('No skill covers "restock the snack cupboard" yet', 'the question');

    chat.type('/teach');
    await chat.waitForText('exec-cfo › /teach', 'the lone /teach');
    chat.press('Enter');
    await chat.waitForText('teaching: one step a line', 'the lesson hint');
    chat.type('Count what is left');
    await chat.waitForText('Count what is left', 'the first step');
    chat.press('Enter');
    chat.type('Order what is missing');
    await chat.waitForText('Order what is missing', 'the second step');
    chat.press('Alt-Enter');
    chat.type('Put it away');
    await chat.waitForText('Put it away', 'the third step');
    chat.press('Enter');
    chat.press('Enter');
    await chat.waitForText('Learned "Restock the snack cupboard" (3 step(s))', 'the lesson summary');
    const skill = await client.getSkill('restock-the-snack-cupboard');
    expect(skill.steps.map((step) => step.title)).toEqual(['Count what is left', 'Order what is missing', 'Put it away']);
    expect(skill.frontmatter).toMatchObject({ learned_by: 'user', triggers: ['restock the snack cupboard'] });
    chat.press('Ctrl-C');
    expect(await chat.exited).toEqual({ exitCode: 0 });
  });

  it('a burst of keys in a pick list lands on the entry it moved to', { timeout: 300_000 }, async () => {
    const third = (await client.getStructure(structureId)).agents[2]!;
    const second = (await client.getStructure(structureId)).agents[1]!;
    const chat = open(['chat', 'Acme']);
    await chat.waitForText('Whom in Acme?', 'the node pick list');
    // The list is drawn before the keyboard is read: one key whose effect shows proves it is read.
    chat.press('Down');
    await chat.waitFor((text) => text.slice(text.lastIndexOf('Whom in Acme?')).includes(`❯ ${second.label}`), 'the cursor on the second node');
    chat.press('Up');
    await chat.waitFor((text) => !text.slice(text.lastIndexOf('Whom in Acme?')).includes(`❯ ${second.label}`), 'the cursor back on the first node');
    // Down Down Enter in one write: the third node opens, not the first.
    chat.type(`${KEYS.Down}${KEYS.Down}${KEYS.Enter}`);
    await chat.waitForText(`${third.role_id} ›`, `the chat with the third node (${third.role_id})`);
    chat.type('x');
    await chat.waitForText(`${third.role_id} › x`, 'a typed key in the chat input');
    chat.press('Ctrl-C');
    expect(await chat.exited).toEqual({ exitCode: 0 });
  });

  it('org skills list | head ends quietly under pipefail', { timeout: 120_000 }, async () => {
    const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
    const shell = startTerminal('bash', ['-o', 'pipefail', '-c', `${quoted(process.execPath)} ${quoted(ORG_BIN)} skills list | head -3; echo "exit=$?"`], { env, cols: 120, rows: 50 });
    terms.push(shell);
    const text = await shell.waitForText(/exit=\d+/, 'the exit status');
    expect(text).toContain('exit=0');
    expect(text).not.toMatch(/EPIPE|Error|at .*\.js:\d+/);
    // Three lines of the listing; stderr may add which server is used (ORG_URL is not the default).
    expect(text.split('\n').filter((line) => line.trim() && !line.startsWith('exit=') && !line.startsWith('org: using ')).length).toBe(3);
  });
});
