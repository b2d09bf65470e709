/**
 * End to end in a real terminal: `org serve` as a child process on a temp home with a
 * bundled-style skill, then `org chat <structure> <role>` running interactively in a
 * pseudo-terminal; a message is typed, and the streamed reply and the summary are read
 * back from the screen as a headless xterm renders it (test/helpers/pty.ts).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { ensureBuilt, REPO_ROOT, startServe, type ServeChild } from './helpers/child.js';
import { startOrgTerminal, type TerminalSession } from './helpers/pty.js';

const ADMIN = 'pty-admin-token-0123456789abcdef';

describe('org chat in a real terminal', () => {
  let home: string;
  let serve: ServeChild | undefined;
  let term: TerminalSession | undefined;

  beforeAll(async () => {
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-pty-'));
    await mkdir(join(home, 'skills'));
    // A bundled skill, its tool_url taken out so that no outside port matters.
    const bundled = await readFile(join(REPO_ROOT, 'skills', 'triage-production-incident.md'), 'utf8');
    await writeFile(join(home, 'skills', 'triage-production-incident.md'), bundled.replace(/^tool_url:.*$/m, 'tool_url: null'));
    serve = await startServe({ home, env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') }, args: ['--no-demo'] });
  }, 120_000);

  afterAll(async () => {
    await term?.close();
    await serve?.stop('SIGTERM');
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('types a message and reads the streamed reply and the summary from the screen', { timeout: 180_000 }, async () => {
    const client = new OrgClient({ url: serve!.url, token: ADMIN });
    await client.createStructure('Acme', 'exec-team');

    term = startOrgTerminal(['chat', 'Acme', 'exec-ceo'], { env: { ORG_URL: serve!.url, ORG_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') }, cols: 120, rows: 50 });

    await term.waitForText('exec-ceo ›', 'the chat prompt');
    expect(term.screen()).toContain('Acme · Chief Executive Officer (exec-ceo)');

    const message = 'triage a production incident: the API is down';
    term.type(message);
    await term.waitForText(`exec-ceo › ${message}`, 'the typed message');
    term.press('Enter');

    // The artifacts line comes after the summary: waiting for it has the whole reply on screen.
    const text = await term.waitForText('artifacts: run-report-', 'the summary and its artifacts');
    expect(text).toContain(`› ${message}`); // the sent message in the transcript
    expect(text).toContain('· Looking for a skill'); // a thought
    expect(text).toContain('✓ search_skills'); // a tool call with its result
    expect(text).toContain('▸ Step 1: Assess the impact'); // milestones
    expect(text).toContain('Confirm the symptom on a dashboard'); // streamed reply text
    expect(text).toContain('◆ Decision: Declare SEV1'); // a decision
    expect(text).toMatch(/✔ Followed "Triage a production incident" through 5 step\(s\)/);
    expect(text).toMatch(/artifacts: run-report-[0-9a-f]{8}\.md/);

    // Nothing is running: Ctrl-C leaves the chat.
    term.press('Ctrl-C');
    const exit = await term.exited;
    expect(exit).toEqual({ exitCode: 0 });
  });
});
