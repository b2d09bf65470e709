/**
 * `org … | head` (issue 16.8): when the reader closes the pipe early, org exits quietly —
 * status 0, nothing on stderr, no stack trace — for a long listing and for a streamed
 * chat. Runs the built CLI under bash with pipefail, as a person's shell would.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { ensureBuilt, ORG_BIN } from './helpers/child.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const run = promisify(execFile);
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

describe('org output into a pipe that closes early', () => {
  let t: TestInstance;
  let dir: string;
  let structureId: string;
  beforeAll(async () => {
    ensureBuilt();
    const home = await mkdtemp(join(tmpdir(), 'org-pipe-'));
    await mkdir(join(home, 'skills'));
    // Enough skills that the listing outgrows a pipe's buffer; one long playbook for chat.
    for (let i = 0; i < 1500; i++) {
      await writeFile(join(home, 'skills', `pipe-skill-${i}.md`), `---\ntype: skill\nname: Pipe skill ${i}\nstatus: complete\nsummary: A skill.\n---\n## [a] Step 1: A\n`);
    }
    const steps = Array.from({ length: 400 }, (_, i) => `## [s${i + 1}] Step ${i + 1}: Step number ${i + 1}\nDo part ${i + 1} of the long job.\n`).join('\n');
    await writeFile(join(home, 'skills', 'long-job.md'), `---\ntype: skill\nname: Long job\nstatus: complete\nsummary: A long job.\n---\n${steps}`);
    t = await startInstance({ listen: true, home });
    structureId = (await new OrgClient({ url: t.url, token: ADMIN_TOKEN }).createStructure('Pipes', 'exec-team')).id;
    dir = await mkdtemp(join(tmpdir(), 'org-pipe-out-'));
  });
  afterAll(() => t.close());

  async function piped(args: string[], lines: number): Promise<{ head: string; stderr: string }> {
    const err = join(dir, `err-${args[0]}-${lines}.txt`);
    const all = [...args, '--url', t.url, '--token', ADMIN_TOKEN];
    const script = `set -o pipefail; ${quote(process.execPath)} ${quote(ORG_BIN)} ${all.map(quote).join(' ')} 2>${quote(err)} | head -${lines}`;
    const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, ORG_CONFIG_DIR: join(dir, 'cfg') } });
    return { head: stdout, stderr: await readFile(err, 'utf8') };
  }

  it('org skills list | head -3: the first lines, exit 0, nothing on stderr', async () => {
    const { head, stderr } = await piped(['skills', 'list', '-s', 'Pipes', '--status', 'complete'], 3);
    expect(head.split('\n').filter(Boolean)).toHaveLength(3);
    expect(head).toMatch(/^SLUG\s+STATUS/);
    expect(stderr).toBe('');
  });

  it('org chat … --json | head -4: four events, exit 0, nothing on stderr', async () => {
    const { head, stderr } = await piped(['chat', structureId, 'exec-coo', '-m', '/long-job', '--json'], 4);
    const events = head.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string });
    expect(events).toHaveLength(4);
    expect(events[0]?.type).toBe('thought');
    expect(stderr).toBe('');
  });
});
