/**
 * One CLI (issue 31.9), as a person meets it, the bundled `org` run as a process against a
 * real server: a usage error exits 2 with a one-line pointer to the help, not the whole
 * help; `delete`/`remove` name the `rm` commands; the hint of `org drafts approve` on a
 * skill that is no draft is a command that works (`-s` names the structure in the drafts
 * commands as everywhere); `org skills show` of a file that does not load says why; and
 * with no `$EDITOR` and no terminal, nothing starts `vi`.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { openInEditor } from '../src/cli/editor.js';
import { ensureBuilt, ORG_BIN } from './helpers/child.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

/** Runs the built `org` with `args` (stdin closed: no terminal); resolves with its exit and output. */
function org(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const clean: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('ORG_') && name !== 'EDITOR' && name !== 'VISUAL') clean[name] = value;
    const child = spawn(process.execPath, [ORG_BIN, ...args], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('one CLI', () => {
  let t: TestInstance;
  let env: Record<string, string>;
  beforeAll(async () => {
    ensureBuilt();
    t = await startInstance({ listen: true });
    env = { ORG_URL: t.url, ORG_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: await mkdtemp(join(tmpdir(), 'org-cli-cfg-')) };
    const client = new OrgClient({ url: t.url, token: ADMIN_TOKEN });
    const { id } = await client.createStructure('Demo', 'exec-team');
    await client.saveSkill({ structure_id: id, slug: 'approved-one', frontmatter: { type: 'skill', name: 'Approved one', status: 'complete', structure_id: id }, body: '## [a] Step 1: A\n' });
    await client.saveSkill({ structure_id: id, slug: 'waiting-one', frontmatter: { type: 'skill', name: 'Waiting one', status: 'draft', structure_id: id }, body: '## [a] Step 1: A\n' });
  }, 120_000);
  afterAll(() => t.close());

  it('a usage error exits 2 with one line pointing at the help, not the whole help', async () => {
    const unknown = await org(['agents', 'add'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: (missing required argument|required option)/m);
    expect(unknown.stderr).toContain('(org help shows the commands; org help COMMAND what a command takes)');
    expect(unknown.stderr).not.toContain('Options:');
    expect((await org(['skills', 'lsit'], env)).code).toBe(2);
    // A --run that can be no run id is a usage error too, said in one line before any server is asked.
    const shortRun = await org(['chat', '--run', 'ab'], env);
    expect([shortRun.code, shortRun.stderr.trim()]).toEqual([2, 'org: --run takes a run id or its first 4 or more characters (hex digits), not "ab"']);
    expect((await org(['--version'], env)).code).toBe(0);
    expect((await org(['help', 'agents'], env)).code).toBe(0);
  });

  it('delete and remove name the rm commands', async () => {
    const help = await org(['agents', 'delete', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('delete a childless node');
    expect((await org(['skills', 'remove', '--help'], env)).stdout).toContain('delete a skill');
  });

  it('the hint of drafts approve on a skill that is no draft is a command that works, -s naming the structure', async () => {
    const approve = await org(['drafts', 'approve', 'approved-one', '-s', 'Demo'], env);
    expect(approve.code).toBe(2);
    const hint = /list the drafts with: (.+)$/m.exec(approve.stderr)?.[1]?.trim();
    expect(hint).toBe('org drafts list -s Demo');
    const listed = await org([...hint!.split(' ').slice(1), '--json'], env);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { slug: string }[]).map((draft) => draft.slug)).toContain('waiting-one');
  });

  it('skills show of a file that does not load says why instead of "not found"', async () => {
    await writeFile(join(t.home, 'skills', 'broken-one.md'), '---\ntype: skill\nname: [unclosed\n---\nbody\n');
    await t.app.skills.settle();
    const shown = await org(['skills', 'show', 'broken-one'], env);
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(/^org: skills\/broken-one\.md(:\d+)? does not load, so the server skips it: .+ \(fix the file; org skills lint checks it\)$/m);
    expect((await org(['skills', 'show', 'no-such-skill'], env)).stderr).toContain('not found');
  });

  it('with no $EDITOR and no terminal, nothing starts vi', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'org-editor-')), 'x.md');
    await expect(openInEditor(file, {}, false)).rejects.toThrow(`no editor: set $EDITOR (or $VISUAL), or edit ${file} yourself; without a terminal org does not start vi`);
    // org skills new itself, run with no terminal and no $EDITOR: the scaffold is written, no vi starts, and it says what to do.
    const created = await org(['skills', 'new', 'plan-offsite', '--remote', '-s', 'Demo'], env);
    expect(created.stderr).toContain('no editor: set $EDITOR (or $VISUAL)');
    expect(created.stderr).toContain('without a terminal org does not start vi');
    expect(created.code).not.toBe(0);
  });
});
