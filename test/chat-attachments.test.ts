/**
 * Attachments and the artifact shelf (API.md §6): names reduced to safe base names and
 * staged on the node's shelf (the runtime gets their paths), listing and download with
 * content types, no way to read or write outside the shelf, bad base64 / too many /
 * too large attachments refused with nothing written.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalRuntime } from '../src/core/runtimes/local.js';
import type { AgentRuntime, Turn } from '../src/core/runtimes/types.js';
import { dispatchRuntime, startChat, type ChatFixture } from './helpers/chat.js';

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

describe('attachments and artifacts', () => {
  let c: ChatFixture;
  const turns: Turn[] = [];
  let shelf: string;

  beforeAll(async () => {
    const echo: AgentRuntime = {
      name: 'echo',
      async run(turn, emit) {
        turns.push(turn);
        await emit({ type: 'complete', content: { summary: `got ${turn.attachments.length} file(s)`, artifacts: [] } });
      },
    };
    c = await startChat({ deps: { runtime: () => dispatchRuntime({ files: echo }, createLocalRuntime()) } });
    const node = c.structure.agents.find((agent) => agent.role_id === c.roleId)!;
    shelf = join(c.t.app.nodes.dir(c.structure.id, node.id), 'artifacts');
  });
  afterAll(async () => {
    await c.close();
  });

  const artifacts = async (roleId = c.roleId) => {
    const response = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}/agents/${roleId}/artifacts`, headers: c.t.auth(c.owner.token) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ artifacts: { name: string; size: number; content_type: string; created_at: string; run_id?: string; source?: string }[] }>().artifacts;
  };
  const download = (name: string) => c.open(`/api/org/structures/${c.structure.id}/agents/${c.roleId}/artifacts/${name}`, { token: c.owner.token });

  it('stages attachments under safe base names, lists them and downloads them with their content type', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
    const stream = await c.send('files attached', {
      attachments: [
        { name: '../../etc/passwd', content_base64: b64('root:x:0:0\n'), content_type: 'text/plain' },
        { name: '...hidden.csv', content_base64: b64('a,b\n1,2\n'), content_type: 'text/csv' },
        { name: 'C:\\Windows\\..\\win.ini', content_base64: b64('[fonts]\n') },
        { name: 'pic\u0000.png', content_base64: png.toString('base64'), content_type: 'image/png' },
      ],
    });
    await stream.ended;
    expect(stream.frames().at(-1)?.event?.content).toEqual({ summary: 'got 4 file(s)', artifacts: [] });

    const turn = turns.at(-1)!;
    expect(turn.attachments.map((file) => file.name)).toEqual(['passwd', 'hidden.csv', 'win.ini', 'pic.png']);
    for (const file of turn.attachments) expect(dirname(file.path)).toBe(shelf);
    expect(turn.attachments.map((file) => [file.content_type, file.size])).toEqual([
      ['text/plain', 11],
      ['text/csv', 8],
      ['application/octet-stream', 8],
      ['image/png', 10],
    ]);

    // On disk: inside the shelf only.
    expect((await readdir(shelf)).sort()).toEqual(['hidden.csv', 'passwd', 'pic.png', 'win.ini']);
    expect(await readFile(join(shelf, 'passwd'), 'utf8')).toBe('root:x:0:0\n');
    const nodes = dirname(dirname(shelf));
    expect(existsSync(join(nodes, 'etc'))).toBe(false);
    expect(existsSync(join(dirname(shelf), 'etc'))).toBe(false);

    // The history's user message lists them.
    const user = (await c.history()).find((message) => message.sender === 'user' && message.run_id === stream.headers['x-org-run-id']);
    expect(user?.attachments).toEqual([
      { name: 'passwd', content_type: 'text/plain', size: 11 },
      { name: 'hidden.csv', content_type: 'text/csv', size: 8 },
      { name: 'win.ini', content_type: 'application/octet-stream', size: 8 },
      { name: 'pic.png', content_type: 'image/png', size: 10 },
    ]);

    const listed = await artifacts();
    expect(listed.map((entry) => entry.name).sort()).toEqual(['hidden.csv', 'passwd', 'pic.png', 'win.ini']);
    // Each names the run whose message brought it.
    expect(listed.find((entry) => entry.name === 'pic.png')).toEqual({
      name: 'pic.png',
      size: 10,
      content_type: 'image/png',
      created_at: expect.stringMatching(/Z$/),
      run_id: stream.headers['x-org-run-id'],
      source: 'attachment',
    });

    const csv = await download('hidden.csv');
    await csv.ended;
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text).toBe('a,b\n1,2\n');
    const image = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}/agents/${c.roleId}/artifacts/pic.png`, headers: c.t.auth(c.owner.token) });
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.rawPayload.equals(png)).toBe(true);
    expect(image.headers['x-content-type-options']).toBe('nosniff');
  });

  it('refuses traversal and unsafe names in downloads', async () => {
    for (const name of ['..%2F..%2F..%2Fkeys.json', '%2e%2e%2fusers.json', '..', '.hidden.csv', '..%5Cpasswd', 'nothing-here.txt', 'passwd%00.txt']) {
      const response = await download(name);
      await response.ended;
      expect([400, 404], `${name}: ${response.text}`).toContain(response.status);
      expect(String(response.headers['content-type'])).toMatch(/^application\/problem\+json/);
      expect(response.text).not.toContain('root:x');
      expect(response.text).not.toMatch(/token|hash|\/tmp\//);
    }
  });

  it('bad base64 → 400 naming the attachment, and nothing is written', async () => {
    const listedBefore = await artifacts();
    const historyBefore = (await c.history({ limit: 500 })).length;
    const response = await c.send('files broken', {
      attachments: [
        { name: 'fine.txt', content_base64: b64('fine') },
        { name: 'broken.txt', content_base64: 'this is not base64!' },
      ],
    });
    const body = await response.json<{ status: number; code: string; errors: { path: string }[] }>();
    expect(response.status).toBe(400);
    expect(body.code).toBe('invalid_request');
    expect(body.errors[0]?.path).toBe('body.attachments.1.content_base64');
    expect(await artifacts()).toEqual(listedBefore);
    expect(existsSync(join(shelf, 'fine.txt'))).toBe(false);
    expect(existsSync(join(shelf, 'broken.txt'))).toBe(false);
    expect((await c.history({ limit: 500 })).length).toBe(historyBefore);
  });

  it('more than 10 attachments, or one over 10 MiB → 400; a body over 25 MiB → 413; nothing written', async () => {
    const listedBefore = await artifacts();
    const eleven = Array.from({ length: 11 }, (_, index) => ({ name: `f${index}.txt`, content_base64: b64(`file ${index}`) }));
    const tooMany = await c.send('files many', { attachments: eleven });
    expect(tooMany.status).toBe(400);
    expect(await tooMany.json()).toMatchObject({ code: 'invalid_request' });

    const big = await c.sync('files big', { attachments: [{ name: 'big.bin', content_base64: Buffer.alloc(10 * 1024 * 1024 + 1).toString('base64') }] });
    expect(big.statusCode).toBe(400);
    expect(big.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: 'body.attachments.0.content_base64' }] });

    const huge = await c.sync('files huge', {
      attachments: [0, 1, 2].map((index) => ({ name: `huge${index}.bin`, content_base64: Buffer.alloc(7 * 1024 * 1024).toString('base64') })),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ code: 'payload_too_large' });

    expect(await artifacts()).toEqual(listedBefore);
    expect((await readdir(shelf)).some((name) => /^(f\d+\.txt|big\.bin|huge\d\.bin)$/.test(name))).toBe(false);
  });

  it('the local runtime writes a markdown run report to the shelf', async () => {
    await c.t.app.skills.upsert({
      slug: 'close-the-month',
      frontmatter: { type: 'skill', name: 'Close the month', status: 'complete', summary: 'Month-end close.' },
      body: '## [reconcile] Step 1: Reconcile\n\nMatch the ledger.\n\nDecision: close on the fifth business day.\n',
    });
    const stream = await c.send('/close-the-month');
    await stream.ended;
    const complete = stream.frames().at(-1)?.event;
    expect(complete?.type).toBe('complete');
    const [report] = (complete?.content as { artifacts: string[] }).artifacts;
    expect(report).toMatch(/^run-report-[0-9a-f]{8}\.md$/);
    // The report names the run that wrote it.
    expect((await artifacts()).find((entry) => entry.name === report)).toMatchObject({ content_type: 'text/markdown', run_id: stream.headers['x-org-run-id'], source: 'agent' });
    const file = await download(report!);
    await file.ended;
    expect(file.headers['content-type']).toMatch(/^text\/markdown/);
    expect(file.text).toContain('# Run report');
    expect(file.text).toContain('### Step 1: Reconcile');
    expect(file.text).toContain('**Decision:** close on the fifth business day.');
  });
});
