/**
 * `org migrate` end to end (issue 14): a home filled through the real API by `org serve`
 * (a user, a structure with nodes and a timeline, an invite, an MCP key, a chat turn with
 * an attachment kept as an artifact) is copied into a PostgreSQL database; `org serve
 * --store` on that database answers the same reads, and the user token and the node key
 * still authenticate. A second copy changes nothing. The database is then copied into an
 * empty folder, and `org serve` on that home answers the same again.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { ensureBuilt, ORG_BIN, startServe, type ServeChild } from './helpers/child.js';
import { eventually } from './helpers/sse.js';

const exec = promisify(execFile);

async function call(base: string, method: 'GET' | 'POST', path: string, token: string, body?: unknown) {
  const response = await request(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  const type = String(response.headers['content-type'] ?? '');
  return { status: response.statusCode, body: type.includes('json') && bytes.length > 0 ? (JSON.parse(bytes.toString('utf8')) as unknown) : bytes.toString('utf8') };
}

/** `org migrate …` as a child process. */
async function migrate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('ORG_')) env[name] = value;
  try {
    const { stdout, stderr } = await exec(process.execPath, [ORG_BIN, 'migrate', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Rows of every table of org's schema. */
async function rowCounts(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('org_instances', 'org_rate_counts') ORDER BY 1`);
    const counts: Record<string, number> = {};
    for (const { name } of rows) counts[name] = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${name}"`)).rows[0]!.n);
    return counts;
  } finally {
    await client.end();
  }
}

// Each test starts org serve and runs the CLI several times: on a loaded machine that takes a while.
describe('org migrate', { timeout: 240_000 }, () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  const servers: ServeChild[] = [];
  let source: string;
  let userToken: string;
  let keyToken: string;
  let structureId: string;
  let runId: string;
  let reads: (base: string) => Promise<Record<string, unknown>>;
  let before: Record<string, unknown>;

  const temp = async (name: string) => {
    const dir = await mkdtemp(join(tmpdir(), `org-migrate-${name}-`));
    dirs.push(dir);
    return dir;
  };
  const serve = async (home: string, env: Record<string, string> = {}) => {
    const child = await startServe({ home, args: ['--no-demo'], env: { ORG_CONFIG_DIR: join(home, 'config'), ...env } });
    servers.push(child);
    return child;
  };

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    source = await temp('source');
    const server = await serve(source);
    // The first start's token line follows the listening line.
    await eventually(() => server.stdout.some((line) => line.includes('token (shown once')));
    userToken = /token \(shown once[^)]*\): (\S+)/.exec(server.stdout.join('\n'))?.[1] ?? '';
    expect(userToken).toMatch(/^org_/);
    const base = server.url;
    const created = await call(base, 'POST', '/api/org/structures', userToken, { name: 'Acme', template: 'exec-team' });
    expect(created.status).toBe(201);
    structureId = (created.body as { id: string }).id;
    const agents = (created.body as { agents: { role_id: string }[] }).agents;
    const roleId = agents[0]!.role_id;
    expect((await call(base, 'POST', `/api/org/structures/${structureId}/agents/${roleId}`, userToken, {})).status).toBeLessThan(500);
    expect((await call(base, 'POST', `/api/org/structures/${structureId}/share`, userToken, { email: 'bea@example.com', role: 'operator' })).status).toBe(200);
    const key = await call(base, 'POST', `/api/org/structures/${structureId}/agents/${roleId}/mcp-key`, userToken, { label: 'bot' });
    expect(key.status).toBe(201);
    keyToken = (key.body as { token: string }).token;
    const turn = await call(base, 'POST', '/api/org/chat/message/sync', userToken, {
      structure_id: structureId,
      role_id: roleId,
      message: 'Please file the attached note',
      attachments: [{ name: 'note.txt', content_type: 'text/plain', content_base64: Buffer.from('the note, byte for byte\n').toString('base64') }],
    });
    expect(turn.status).toBe(200);
    runId = (turn.body as { run_id: string }).run_id;

    reads = async (at) => {
      const get = async (path: string, token = userToken) => {
        const answer = await call(at, 'GET', path, token);
        expect(answer.status, path).toBe(200);
        return answer.body;
      };
      const node = `/api/org/structures/${structureId}/agents/${roleId}`;
      return {
        structures: await get('/api/org/structures'),
        structure: await get(`/api/org/structures/${structureId}`),
        members: await get(`/api/org/structures/${structureId}/members`),
        log: await get(`/api/org/structures/${structureId}/log`),
        history: await get(`/api/org/chat/history?structure_id=${structureId}&role_id=${roleId}`),
        events: await get(`/api/org/chat/runs/${runId}/events`),
        artifacts: await get(`${node}/artifacts`),
        artifact: await get(`${node}/artifacts/note.txt`),
        timeline: await get(`${node}/timeline`),
        // Without last_used_at: every read below that uses the key moves it.
        keys: ((await get(`${node}/mcp-keys`)) as { keys: Record<string, unknown>[] }).keys.map(({ last_used_at: _used, ...key }) => key),
        // The node's key still authenticates (as that node).
        whoami: await get('/api/org/whoami', keyToken),
      };
    };
    before = await reads(base);
    expect(before.artifact).toBe('the note, byte for byte\n');
    expect(JSON.stringify(before.history)).toContain('Please file the attached note');
    await server.stop('SIGTERM');
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGTERM')));
    await database?.drop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('copies a home into a database that org serve --store then serves the same; a second copy changes nothing', async () => {
    const first = await migrate('--from', source, '--to', database.url);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/users: 1 copied, 0 already there/);
    expect(first.stdout).toMatch(/structures: 1 copied/);
    expect(first.stdout).toMatch(/runs: 1 copied/);
    expect(first.stdout).toMatch(/artifacts: 1 copied/);
    expect(first.stdout).not.toContain('org-test-password');
    const counts = await rowCounts(database.url);

    const again = await migrate('--from', source, '--to', database.url);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to copy');
    expect(again.stdout).toMatch(/runs: 0 copied, 1 already there/);
    expect(await rowCounts(database.url)).toEqual(counts);

    const shared = await serve(await temp('instance'), { ORG_STORE_URL: database.url });
    expect(await reads(shared.url)).toEqual(before);
    await shared.stop('SIGTERM');
  });

  it('copies the database back into an empty folder that org serve then serves the same', async () => {
    const target = join(await temp('back'), 'home');
    const back = await migrate('--from', database.url, '--to-dir', target);
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/runs: 1 copied/);
    expect((await migrate('--from', database.url, '--to-dir', target)).stdout).toContain('nothing to copy');
    const home = await serve(target);
    // No first-start user: the copied one is there.
    expect(home.stdout.join('\n')).not.toContain('first start');
    expect(await reads(home.url)).toEqual(before);
  });

  it('refuses bad arguments in the user\'s words, and a home that a server is running on', async () => {
    expect(await migrate('--to', database.url)).toMatchObject({ code: 2, stderr: expect.stringMatching(/--from is required/) });
    expect(await migrate('--from', source)).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs --to postgres:\/\//) });
    expect(await migrate('--from', source, '--to', 'mysql://x')).toMatchObject({ code: 2, stderr: expect.stringMatching(/--to must be a PostgreSQL URL/) });
    expect(await migrate('--from', database.url)).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs --to-dir/) });
    const running = await serve(source);
    const refused = await migrate('--from', source, '--to', database.url);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/stop that server first/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    await running.stop('SIGTERM');
  });
});
