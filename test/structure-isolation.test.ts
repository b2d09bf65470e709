/**
 * Nothing of another structure is visible, by any path (API.md §10). Alice's view of the
 * library is taken through every path that could show something of Bob's structure: the
 * list, one skill (with and without structure_id), search, explain and why, the gap
 * report, export, conditional writes (If-Match, If-None-Match), an import's dry run, a
 * fork, a restore, the deleted list, the problems, the history, MCP's list_skills,
 * search_skills, read_skill and skill resources, and the slug a learned draft gets. Then
 * Bob adds a private skill whose words Alice probes for, a broken file, a deleted skill
 * and chat gaps; Alice's view, taken again, is identical, byte for byte (request ids
 * aside): no path names, counts or scores what Bob has.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatSkills } from '../src/core/chat/index.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { nextChange } from './helpers/skills.js';

const SECRET = 'secret-plan';
const PROBE = 'zanzibar merger acquisition';
const fm = (over: Record<string, unknown> = {}) => ({ type: 'skill', name: 'Invoice follow-up', status: 'complete', summary: 'Follow up on an invoice.', tags: ['finance'], ...over });
const BODY = '## [check] Step 1: Check the ledger\n\nLook the invoice up.\n';

let t: TestInstance;
let alice: { token: string; id: string };
let bob: { token: string; id: string };
let a: string;
let b: string;
let aliceKey: string;
const clients: Client[] = [];

/** One request as Alice sees its answer: status and body, the request id of problems left out. */
async function view(method: string, url: string, token = alice.token, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${token}`, ...headers } };
  if (body instanceof Uint8Array) {
    init.body = body;
    (init.headers as Record<string, string>)['content-type'] = 'application/zip';
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const answer = await fetch(`${t.url}${url}`, init);
  const text = await answer.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    parsed = `${text.length} bytes`;
  }
  if (parsed && typeof parsed === 'object' && 'instance' in parsed) delete (parsed as { instance?: unknown }).instance;
  return { status: answer.status, body: parsed };
}

/** Everything Alice can learn through every path. */
async function aliceView(): Promise<Record<string, unknown>> {
  const q = `structure_id=${a}`;
  const out: Record<string, unknown> = {};
  out.list = await view('GET', `/api/org/knowledge/skills?${q}&status=complete,draft,deprecated`);
  out.getScoped = await view('GET', `/api/org/knowledge/skills/${SECRET}?${q}`);
  out.getUnscoped = await view('GET', `/api/org/knowledge/skills/${SECRET}`);
  out.history = await view('GET', `/api/org/knowledge/skills/${SECRET}/history?${q}`);
  out.search = await view('POST', '/api/org/knowledge/search', alice.token, { structure_id: a, query: PROBE });
  out.searchOwn = await view('POST', '/api/org/knowledge/search', alice.token, { structure_id: a, query: `invoice ${PROBE}` });
  out.explain = await view('POST', '/api/org/knowledge/search', alice.token, { structure_id: a, query: `invoice ${PROBE}`, explain: true, why: [SECRET, 'invoice-follow-up'], limit: 10 });
  out.explainPrefix = await view('POST', '/api/org/knowledge/search', alice.token, { structure_id: a, query: 'zanzi', explain: true });
  out.explainTypo = await view('POST', '/api/org/knowledge/search', alice.token, { structure_id: a, query: 'zanzibaar', explain: true });
  out.gaps = await view('GET', `/api/org/knowledge/gaps?${q}`);
  out.export = await view('GET', `/api/org/knowledge/skills/${SECRET}/export?${q}`);
  out.ifMatch = await view('POST', '/api/org/knowledge/skills', alice.token, { structure_id: a, slug: SECRET, frontmatter: fm(), body: BODY }, { 'if-match': '"abc"' });
  out.ifMatchAny = await view('DELETE', `/api/org/knowledge/skills/${SECRET}?${q}`, alice.token, undefined, { 'if-match': '*' });
  const zip = zipSync({ [`${SECRET}/SKILL.md`]: new TextEncoder().encode(`---\nname: ${SECRET}\ndescription: Mine.\n---\n# Mine\n\n1. One\n2. Two\n`) });
  out.importDryRun = await view('POST', `/api/org/knowledge/import?${q}`, alice.token, zip);
  out.fork = await view('POST', `/api/org/knowledge/skills/${SECRET}/fork`, alice.token, { structure_id: a });
  out.restore = await view('POST', `/api/org/knowledge/skills/${SECRET}/restore?${q}`);
  out.deleted = await view('GET', `/api/org/knowledge/deleted?${q}`);
  out.problems = await view('GET', `/api/org/knowledge/problems?${q}`);
  out.problemsUnscoped = await view('GET', '/api/org/knowledge/problems');
  // MCP, with a key of one of Alice's nodes.
  const client = new Client({ name: 'isolation-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${aliceKey}` } } }));
  clients.push(client);
  out.mcpList = (await client.callTool({ name: 'list_skills', arguments: {} })).structuredContent;
  out.mcpSearch = (await client.callTool({ name: 'search_skills', arguments: { query: PROBE } })).structuredContent;
  out.mcpRead = await client.callTool({ name: 'read_skill', arguments: { slug: SECRET } });
  out.mcpResource = await client.readResource({ uri: `skill://${SECRET}/SKILL.md` }).then(
    (result) => result,
    (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
  );
  await client.close();
  return out;
}

beforeAll(async () => {
  t = await startInstance({ listen: true });
  alice = await t.createUser('alice@example.com');
  bob = await t.createUser('bob@example.com');
  a = (await t.createStructure(alice.token, 'exec-team', 'Alice Co')).id;
  b = (await t.createStructure(bob.token, 'exec-team', 'Bob Co')).id;
  // The shared library and Alice's own skill.
  await t.app.skills.upsert({ slug: 'chase-overdue-invoices', frontmatter: fm({ name: 'Chase overdue invoices', triggers: ['a customer pays late'] }), body: BODY });
  await t.app.skills.upsert({ slug: 'invoice-follow-up', frontmatter: fm(), body: BODY, structureId: a });
  const key = await t.server.inject({ method: 'POST', url: `/api/org/structures/${a}/agents/exec-ceo/mcp-key`, headers: t.auth(alice.token), payload: { label: 'probe' } });
  aliceKey = key.json<{ token: string }>().token;
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await t.close();
});

describe('nothing of another structure is visible', () => {
  it('every path Alice has answers the same before and after Bob adds private skills, a broken file, a deletion and gaps', async () => {
    const before = await aliceView();

    // Bob's private things: a skill full of the words Alice probes for, a deleted one, a
    // broken file in his folder, and chat messages that matched nothing (gaps).
    const write = (slug: string, over: Record<string, unknown>) =>
      view('POST', '/api/org/knowledge/skills', bob.token, { structure_id: b, slug, frontmatter: fm(over), body: `${BODY}\nThe ${PROBE} plan, zanzibarian style.\n` });
    expect((await write(SECRET, { name: 'Zanzibar merger', summary: `Plan the ${PROBE}.`, triggers: [PROBE, 'zanzibar acquisition'], tags: ['zanzibar'] })).status).toBe(201);
    expect((await write('zanzibar-invoice', { name: 'Zanzibar invoice', triggers: ['invoice zanzibar'] })).status).toBe(201);
    expect((await write('zanzibar-old', { name: 'Zanzibar old' })).status).toBe(201);
    expect((await view('DELETE', `/api/org/knowledge/skills/zanzibar-old?structure_id=${b}`, bob.token)).status).toBe(204);
    const broken = nextChange(t.app.skills, (event) => event.type === 'problem' && event.file === `${b}/zanzibar-broken.md`, 'the problem of Bob’s broken file');
    await mkdir(join(t.home, 'skills', b), { recursive: true });
    await writeFile(join(t.home, 'skills', b, 'zanzibar-broken.md'), '---\nname: [unclosed\n---\nZanzibar.\n');
    await broken;
    for (const message of ['zanzibar merger acquisition please', 'book the zanzibar trip']) {
      expect((await view('POST', '/api/org/chat/message/sync', bob.token, { structure_id: b, role_id: 'exec-ceo', message })).status).toBe(200);
    }

    const after = await aliceView();
    for (const path of Object.keys(before)) expect({ path, answer: after[path] }).toEqual({ path, answer: before[path] });
    // Creating her own skill of the slug (create only) is Alice's business only.
    const created = await view('POST', '/api/org/knowledge/skills', alice.token, { structure_id: a, slug: SECRET, frontmatter: fm(), body: BODY }, { 'if-none-match': '*' });
    expect(created.status).toBe(201);
    expect((await view('DELETE', `/api/org/knowledge/skills/${SECRET}?structure_id=${a}`)).status).toBe(204);
    // Not vacuous: Bob sees what Alice does not.
    expect(JSON.stringify((await view('POST', '/api/org/knowledge/search', bob.token, { structure_id: b, query: PROBE })).body)).toContain(SECRET);
    expect(JSON.stringify((await view('GET', `/api/org/knowledge/problems?structure_id=${b}`, bob.token)).body)).toContain('zanzibar-broken');
    expect(JSON.stringify((await view('GET', '/api/org/knowledge/problems', ADMIN_TOKEN)).body)).toContain('zanzibar-broken');
  });

  it('a draft Alice learns gets its slug as Alice’s library has it, whatever Bob has', async () => {
    const learned = await createChatSkills(t.app.skills).learnDraft({
      slug: SECRET,
      name: 'Secret plan',
      category: 'general',
      tags: [],
      summary: 'Learned.',
      body: BODY,
      structureId: a,
    });
    expect(learned).toBe(SECRET);
    expect((await t.app.skills.get(SECRET, b))?.frontmatter.name).toBe('Zanzibar merger');
  });
});
