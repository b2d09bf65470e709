/**
 * `org migrate` end to end (issue 14): a home filled through the real API by `org serve`
 * (a user, a structure with nodes and a timeline, an invite, an MCP key, a chat turn with
 * an attachment kept as an artifact, the audit log those calls wrote, and a reply owed to
 * an inbound e-mail whose turn ended just before the server stopped) is copied into a
 * PostgreSQL database, and the database back into an empty folder, each twice (the second
 * copy changes nothing). `org serve --store` on the database and `org serve` on the copied
 * home answer the same reads, the user token and the node key still authenticate, and
 * each sends the owed reply on its first start.
 */
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
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

/** The messages in a home's mail outbox (written when no SMTP server is set). */
async function outbox(home: string): Promise<string[]> {
  const dir = join(home, '.org', 'outbox');
  const files = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.eml'));
  return Promise.all(files.map((name) => readFile(join(dir, name), 'utf8')));
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
  let copyHome: string;
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
    const agents = (created.body as { agents: { id: string; role_id: string }[] }).agents;
    const roleId = agents[0]!.role_id;
    const nodeId = agents[0]!.id;
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
        // First: the reads below add to it (a key's first use from a client is audited).
        audit: await get(`/api/org/structures/${structureId}/audit`),
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
    // The log as it stands when the server stops, the reads' own entries included.
    before.audit = (await call(base, 'GET', `/api/org/structures/${structureId}/audit`, userToken)).body;
    expect(before.artifact).toBe('the note, byte for byte\n');
    expect(JSON.stringify(before.history)).toContain('Please file the attached note');
    const audited = (before.audit as { entries: { action: string }[] }).entries.map((entry) => entry.action);
    expect(audited.length).toBeGreaterThanOrEqual(3);
    await server.stop('SIGTERM');
    // A reply owed to the e-mail that started the turn, not sent yet when the server stopped
    // (the journal record an inbound e-mail leaves until its reply goes out).
    const owed = { kind: 'owed', run_id: runId, structure_id: structureId, node_id: nodeId, role_id: roleId, to: 'ops@example.com', subject: 'Re: Invoices', message_id: '<m1@example.com>', references: [] };
    await appendFile(join(source, '.org', 'inbound-replies.jsonl'), `${JSON.stringify(owed)}\n`);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGTERM')));
    await database?.drop();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('copies a home into a database and the database into an empty folder, each a second time with nothing left to copy', async () => {
    const first = await migrate('--from', source, '--to', database.url);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/users: 1 copied, 0 already there/);
    expect(first.stdout).toMatch(/structures: 1 copied/);
    expect(first.stdout).toMatch(/runs: 1 copied/);
    expect(first.stdout).toMatch(/artifacts: 1 copied/);
    // Every entry of the log, those of no structure (a user's own) included.
    const audited = (await readFile(join(source, '.org', 'audit.jsonl'), 'utf8')).split('\n').filter(Boolean).length;
    expect(audited).toBeGreaterThan((before.audit as { entries: unknown[] }).entries.length - 1);
    expect(first.stdout).toContain(`audit entries: ${audited} copied, 0 already there`);
    expect(first.stdout).toContain('owed replies: 1 copied, 0 already there');
    expect(first.stdout).not.toContain('org-test-password');
    const counts = await rowCounts(database.url);
    expect(counts.audit_log).toBe(audited);
    expect(counts.inbound_replies).toBe(1);

    const again = await migrate('--from', source, '--to', database.url);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to copy');
    expect(again.stdout).toMatch(/runs: 0 copied, 1 already there/);
    expect(again.stdout).toContain(`audit entries: 0 copied, ${audited} already there`);
    expect(again.stdout).toContain('owed replies: 0 copied, 1 already there');
    expect(await rowCounts(database.url)).toEqual(counts);

    copyHome = join(await temp('back'), 'home');
    const back = await migrate('--from', database.url, '--to-dir', copyHome);
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/runs: 1 copied/);
    expect(back.stdout).toContain(`audit entries: ${audited} copied`);
    expect(back.stdout).toContain('owed replies: 1 copied');
    const files = async () => Promise.all(['users.json', 'keys.json', 'invites.json', 'audit.jsonl', 'inbound-replies.jsonl'].map((name) => readFile(join(copyHome, '.org', name), 'utf8')));
    const written = await files();
    const backAgain = await migrate('--from', database.url, '--to-dir', copyHome);
    expect(backAgain.stdout).toContain('nothing to copy');
    expect(await files()).toEqual(written);
    // The copy of the copy matches the source's audit log, entry for entry and in order.
    const lines = (text: string) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown);
    expect(lines(written[3]!)).toEqual(lines(await readFile(join(source, '.org', 'audit.jsonl'), 'utf8')));
  });

  it('serves the database with org serve --store as the home was served, and sends the owed reply once', async () => {
    const home = await temp('instance');
    const shared = await serve(home, { ORG_STORE_URL: database.url });
    expect(await reads(shared.url)).toEqual(before);
    const sent = (await outbox(home)).filter((mail) => mail.includes('ops@example.com'));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(`run ${runId}`);
    await shared.stop('SIGTERM');
    // Answered: neither a restart nor another copy owes it again.
    expect((await migrate('--from', source, '--to', database.url)).stdout).toContain('owed replies: 0 copied, 1 already there');
    const restarted = await serve(home, { ORG_STORE_URL: database.url });
    expect((await outbox(home)).filter((mail) => mail.includes('ops@example.com'))).toHaveLength(1);
    await restarted.stop('SIGTERM');
  });

  it('serves the folder copied back from the database as the home was served, and sends the owed reply', async () => {
    const home = await serve(copyHome);
    // No first-start user: the copied one is there.
    expect(home.stdout.join('\n')).not.toContain('first start');
    expect(await reads(home.url)).toEqual(before);
    const sent = (await outbox(copyHome)).filter((mail) => mail.includes('ops@example.com'));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(`run ${runId}`);
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
