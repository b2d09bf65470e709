/**
 * End to end in a real terminal: `org serve` as a child process on a temp home with a
 * bundled-style skill, then `org chat <structure> <role>` running interactively inside
 * tmux; a message is typed, and the streamed reply and the summary are read back from
 * the screen with capture-pane. Needs tmux: without it this test fails (it must not
 * pass silently).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { ensureBuilt, ORG_BIN, REPO_ROOT, startServe, type ServeChild } from './helpers/child.js';

const ADMIN = 'tmux-admin-token-0123456789abcdef';
const SOCKET = `org-e2e-${process.pid}`;

function tmuxPath(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args], { encoding: 'utf8' });
}

/** The pane's text, scrollback included. */
function screen(): string {
  return tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', 'chat');
}

function sessionAlive(): boolean {
  try {
    tmux('has-session', '-t', 'chat');
    return true;
  } catch {
    return false;
  }
}

async function waitForScreen(predicate: (text: string) => boolean, what: string, ms = 20_000): Promise<string> {
  const until = Date.now() + ms;
  let text = '';
  while (Date.now() < until) {
    text = screen();
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}; the screen shows:\n${text}`);
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

describe('org chat in a real terminal (tmux)', () => {
  let home: string;
  let serve: ServeChild | undefined;

  beforeAll(async () => {
    if (!tmuxPath()) {
      throw new Error('tmux is not installed: the terminal end-to-end test needs it (apt-get install tmux); it does not skip');
    }
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-tmux-'));
    await mkdir(join(home, 'skills'));
    // A bundled skill, its tool_url taken out so that no outside port matters.
    const bundled = await readFile(join(REPO_ROOT, 'skills', 'triage-production-incident.md'), 'utf8');
    await writeFile(join(home, 'skills', 'triage-production-incident.md'), bundled.replace(/^tool_url:.*$/m, 'tool_url: null'));
    serve = await startServe({ home, env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') }, args: ['--no-demo'] });
  });

  afterAll(async () => {
    try {
      tmux('kill-server');
    } catch {
      // Already gone.
    }
    await serve?.stop('SIGTERM');
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('types a message and reads the streamed reply and the summary from the screen', async () => {
    const client = new OrgClient({ url: serve!.url, token: ADMIN });
    await client.createStructure('Acme', 'exec-team');

    const env = { ORG_URL: serve!.url, ORG_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') };
    // `-u CI`: a person's terminal is not CI, and Ink draws no live frames when CI is set.
    const command = `env -u CI -u CONTINUOUS_INTEGRATION ${Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`).join(' ')} ${quote(process.execPath)} ${quote(ORG_BIN)} chat Acme exec-ceo`;
    tmux('new-session', '-d', '-s', 'chat', '-x', '120', '-y', '50', command);

    await waitForScreen((text) => text.includes('exec-ceo ›'), 'the chat prompt');
    expect(screen()).toContain('Acme · Chief Executive Officer (exec-ceo)');

    const message = 'triage a production incident: the API is down';
    tmux('send-keys', '-t', 'chat', '-l', message);
    await waitForScreen((text) => text.includes(`exec-ceo › ${message}`), 'the typed message');
    tmux('send-keys', '-t', 'chat', 'Enter');

    const text = await waitForScreen((current) => current.includes('✔ Followed "Triage a production incident"'), 'the summary');
    expect(text).toContain(`› ${message}`); // the sent message in the transcript
    expect(text).toContain('· Looking for a skill'); // a thought
    expect(text).toContain('✓ search_skills'); // a tool call with its result
    expect(text).toContain('▸ Step 1: Assess the impact'); // milestones
    expect(text).toContain('Confirm the symptom on a dashboard'); // streamed reply text
    expect(text).toContain('◆ Decision: Declare SEV1'); // a decision
    expect(text).toMatch(/✔ Followed "Triage a production incident" through 5 step\(s\)/);
    expect(text).toMatch(/artifacts: run-report-[0-9a-f]{8}\.md/);

    // Nothing is running: Ctrl-C leaves the chat.
    tmux('send-keys', '-t', 'chat', 'C-c');
    const until = Date.now() + 10_000;
    while (sessionAlive() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sessionAlive()).toBe(false);
  });
});
