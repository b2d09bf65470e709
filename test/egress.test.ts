/**
 * The egress gate on a real listening server (API.md §10 "Outbound addresses"): every
 * URL org calls for a user — a node's `container_url`, a skill's `tool_url`, a webhook —
 * is refused on loopback, private, link-local, metadata and other special addresses, in
 * every spelling, at registration (400 `egress_refused`) and again at connect time (a
 * failed `tool_result`, an `error` event, a failed delivery), including a name that
 * resolves there and one that resolves elsewhere first (DNS rebinding); redirects are
 * never followed; and `--allow-egress` lets through exactly what it names.
 *
 * A "target" server on this host counts every request it gets: the refusals are real
 * only because the target, which every loopback spelling reaches, never hears a thing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import { systemLookup, type EgressLookup } from '../src/core/egress/index.js';
import type { Delivery } from '../src/core/schemas/webhooks.js';
import { EGRESS_REFUSED } from '../src/core/webhooks/index.js';
import { agentSkills } from '../src/core/skills/index.js';
import { ensureBuilt, startServe } from './helpers/child.js';
import { startInstance, type TestInstance, ADMIN_TOKEN } from './helpers/instance.js';
import { notifier } from './helpers/notifier.js';

/** A server on every loopback address of this host (both families when it has them) that counts what it gets. */
interface Target {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function startTarget(handler?: Parameters<typeof createServer>[1]): Promise<Target> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    if (handler) return handler(request, response);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":"from the inside"}');
  });
  // `::` takes IPv4 too (as ::ffff:a.b.c.d); a host without IPv6 gets 0.0.0.0.
  await new Promise<void>((resolve, reject) => {
    server.once('error', () => {
      server.removeAllListeners('error');
      server.once('error', reject);
      server.listen(0, '0.0.0.0', resolve);
    });
    server.listen({ port: 0, host: '::', ipv6Only: false }, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A skill whose one step calls `toolUrl`. */
function toolSkill(toolUrl: string | null) {
  return {
    type: 'skill',
    name: 'Call the tool',
    category: 'general',
    difficulty: 'low',
    tags: ['egress'],
    status: 'complete',
    summary: 'Calls a tool.',
    learned_by: 'user',
    tool_url: toolUrl,
  };
}
const TOOL_BODY = '## [call] Step 1: Call the tool\nAsk the tool.\n';

/** JSON over real HTTP to the instance. */
async function call(t: TestInstance, method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

type Event = { type: string; content: Record<string, unknown> & { message?: string; tool?: string; result?: Record<string, unknown> } };

/** Runs a sync turn and returns its events. */
async function turn(t: TestInstance, structureId: string, roleId: string, message: string): Promise<Event[]> {
  const { status, json } = await call(t, 'POST', '/api/org/chat/message/sync', { structure_id: structureId, role_id: roleId, message });
  expect(status).toBe(200);
  return json.events as Event[];
}

function toolResult(events: Event[]): Record<string, unknown> {
  const result = events.find((event) => event.type === 'tool_result' && event.content.tool === 'tool_url')?.content.result;
  expect(result).toBeDefined();
  return result!;
}

/** The names the tests resolve themselves: loopback behind a name, a mixed answer, and a name that rebinds after its first lookup. */
function testLookup(): EgressLookup {
  const rebinds = new Map<string, number>();
  return async (host) => {
    if (host === 'loopback.example.test') return [{ address: '127.0.0.1', family: 4 }];
    if (host === 'mixed.example.test') return [{ address: '93.184.215.14', family: 4 }, { address: '10.0.0.1', family: 4 }];
    if (host.startsWith('rebind')) {
      const seen = rebinds.get(host) ?? 0;
      rebinds.set(host, seen + 1);
      return [{ address: seen === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    }
    return systemLookup(host);
  };
}

describe('egress refuses private addresses', () => {
  let t: TestInstance;
  let target: Target;
  let structureId: string;
  let rootId: string;
  let reach: string[];
  let refusedElsewhere: [string, RegExp][];

  beforeAll(async () => {
    target = await startTarget();
    // The production default: nothing but public addresses.
    t = await startInstance({ listen: true, config: { egressAllow: [] }, deps: { egressLookup: testLookup() } });
    const structure = (await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Egress')) as unknown as { id: string; agents: { id: string; parent_id: string | null }[] };
    structureId = structure.id;
    rootId = structure.agents.find((agent) => agent.parent_id === null)!.id;
    const port = target.port;
    // Every spelling of this host that reaches the target's port.
    reach = [
      `http://127.0.0.1:${port}`,
      `http://127.1:${port}`,
      `http://2130706433:${port}`,
      `http://0x7f.1:${port}`,
      `http://017700000001:${port}`,
      `http://[::ffff:127.0.0.1]:${port}`,
      `http://[::1]:${port}`,
      `http://0.0.0.0:${port}`,
      `http://localhost:${port}`,
      `http://loopback.example.test:${port}`,
    ];
    // Other refused classes (nothing listens there; registration alone must refuse them).
    refusedElsewhere = [
      ['http://10.0.0.1/', /private network address; the operator can allow it with --allow-egress private/],
      ['http://192.168.1.20:8080/', /--allow-egress private/],
      ['http://172.16.0.1/', /--allow-egress private/],
      ['http://[fd12::1]/', /unique-local .*--allow-egress private/],
      ['http://100.64.0.1/', /carrier-grade NAT.*--allow-egress private/],
      ['http://169.254.1.1/', /link-local address; the operator can allow it with --allow-egress 169\.254\.1\.1/],
      ['http://[fe80::1]/', /link-local/],
      ['http://169.254.169.254/latest/meta-data/', /cloud metadata service address; a metadata service is called only when named exactly: --allow-egress 169\.254\.169\.254/],
      ['http://[fd00:ec2::254]/', /named exactly: --allow-egress fd00:ec2::254/],
      ['http://224.0.0.1/', /multicast/],
      ['http://255.255.255.255/', /broadcast/],
      ['http://198.18.0.1/', /reserved/],
      ['http://[64:ff9b::a00:1]/', /64:ff9b::a00:1 is 10\.0\.0\.1, which is a private network address/],
      ['http://mixed.example.test/', /mixed\.example\.test resolves to 10\.0\.0\.1, which is a private network address/],
    ];
  });
  afterAll(async () => {
    await t?.close();
    await target?.close();
  });

  it('at registration: container_url (add and change), tool_url and webhook URLs answer 400 egress_refused naming --allow-egress', async () => {
    const all: [string, RegExp][] = [...reach.map((url): [string, RegExp] => [url, /is a loopback address \(this host\); the operator can allow it with --allow-egress loopback|unspecified address/]), ...refusedElsewhere];
    const existing = (await call(t, 'POST', `/api/org/structures/${structureId}/agents`, { role_id: 'egress-existing', label: 'Existing', parent_id: rootId })).json;
    for (const [i, [url, why]] of all.entries()) {
      const added = await call(t, 'POST', `/api/org/structures/${structureId}/agents`, { role_id: `egress-n${i}`, label: 'N', parent_id: rootId, container_url: url });
      expect(added.status, url).toBe(400);
      expect(added.json).toMatchObject({ code: 'egress_refused', errors: [{ path: 'container_url' }] });
      expect(added.json.detail, url).toMatch(why);
      const changed = await call(t, 'PATCH', `/api/org/structures/${structureId}/agents/egress-existing`, { container_url: url });
      expect([changed.status, changed.json.code], url).toEqual([400, 'egress_refused']);
      const skill = await call(t, 'POST', '/api/org/knowledge/skills', { structure_id: structureId, slug: `egress-tool-${i}`, frontmatter: toolSkill(url), body: TOOL_BODY });
      expect([skill.status, skill.json.code], url).toEqual([400, 'egress_refused']);
      expect(skill.json.detail, url).toMatch(/^frontmatter\.tool_url .* is refused by the egress policy/);
      const hook = await call(t, 'POST', `/api/org/structures/${structureId}/webhooks`, { url, events: ['run.completed'] });
      expect([hook.status, hook.json.code], url).toEqual([400, 'egress_refused']);
    }
    expect(existing.container_url).toBeNull();
    expect((await call(t, 'GET', '/api/org/knowledge/skills/egress-tool-0')).status).toBe(404);
    expect((await call(t, 'GET', `/api/org/structures/${structureId}/webhooks`)).json.webhooks).toEqual([]);
  });

  it('at registration: an import whose skill calls a refused tool_url is refused whole, dry run included', async () => {
    await t.app.skills.upsert({ slug: 'egress-exported', frontmatter: toolSkill(reach[1]!), body: TOOL_BODY, structureId });
    const exported = await fetch(`${t.url}/api/org/knowledge/skills/egress-exported/export?structure_id=${structureId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const zip = Buffer.from(await exported.arrayBuffer());
    await t.app.skills.remove('egress-exported', { structureId });
    expect((await agentSkills.unzipFolders(new Uint8Array(zip))).folders).toHaveLength(1);
    for (const dryRun of [true, false]) {
      const response = await fetch(`${t.url}/api/org/knowledge/import?structure_id=${structureId}&dry_run=${dryRun}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/zip' },
        body: zip,
      });
      const problem = (await response.json()) as { code: string; detail: string };
      expect([response.status, problem.code]).toEqual([400, 'egress_refused']);
      expect(problem.detail).toMatch(/^tool_url of egress-exported http:\/\/127\.0\.0\.1:\d+ is refused by the egress policy/);
    }
    expect((await call(t, 'GET', '/api/org/knowledge/skills/egress-exported')).status).toBe(404);
  });

  it('at connect time: a container turn on any spelling ends with an error saying the address was refused', async () => {
    for (const [i, url] of reach.entries()) {
      // Stored without the registration check, as a node of an earlier version would be.
      await t.app.nodes.add(structureId, { role_id: `egress-c${i}`, label: 'C', parent_id: rootId, container_url: url }, 'test');
      const events = await turn(t, structureId, `egress-c${i}`, 'hello');
      expect(events.map((event) => event.type), url).toEqual(['error']);
      expect(events[0]!.content.message, url).toMatch(/is refused by the egress policy: .*(loopback address|unspecified address).*--allow-egress/);
    }
    expect(target.hits).toEqual([]);
  });

  it('at connect time: a tool_url on any spelling is a failed tool_result saying it was refused, and the turn goes on', async () => {
    for (const [i, url] of reach.entries()) {
      await t.app.skills.upsert({ slug: `egress-direct-${i}`, frontmatter: toolSkill(url), body: TOOL_BODY, structureId });
      const events = await turn(t, structureId, 'exec-cfo', `/egress-direct-${i}`);
      const result = toolResult(events);
      expect(result, url).toMatchObject({ ok: false, refused: true });
      expect(result.error, url).toMatch(/^tool_url http:\/\/.* is refused by the egress policy: .*--allow-egress/);
      expect(events.at(-1)!.type).toBe('complete');
    }
    expect(target.hits).toEqual([]);
  });

  it('at connect time: a name that resolved to a public address at registration and to loopback now is refused (no rebinding)', async () => {
    const url = `http://rebind-a.example.test:${target.port}`;
    const added = await call(t, 'POST', `/api/org/structures/${structureId}/agents`, { role_id: 'egress-rebind', label: 'R', parent_id: rootId, container_url: url });
    expect(added.status).toBe(201);
    const events = await turn(t, structureId, 'egress-rebind', 'hello');
    expect(events[0]!.content.message).toMatch(/rebind-a\.example\.test resolves to 127\.0\.0\.1, which is a loopback address/);
    const skill = await call(t, 'POST', '/api/org/knowledge/skills', { structure_id: structureId, slug: 'egress-rebind', frontmatter: toolSkill(`http://rebind-b.example.test:${target.port}/tool`), body: TOOL_BODY });
    expect(skill.status).toBe(201);
    expect(toolResult(await turn(t, structureId, 'exec-cfo', '/egress-rebind'))).toMatchObject({ ok: false, refused: true });
    expect(target.hits).toEqual([]);
  });

  it('at connect time: webhook deliveries to any spelling fail as refused, and never reach the address', async () => {
    const owner = await t.createUser('egress-hooks@example.com');
    const own = (await t.createStructure(owner.token, 'blank', 'Hooks')) as unknown as { id: string };
    await call(t, 'POST', `/api/org/structures/${own.id}/agents`, { role_id: 'hooks-lead', label: 'Lead', parent_id: null }, owner.token);
    for (const url of reach) await t.app.webhooks.create(own.id, { url, events: ['run.completed'] });
    const settled: Delivery[] = [];
    const changes = notifier();
    const stop = t.app.webhooks.onDelivery((delivery) => {
      if (delivery.attempts.length > 0) settled.push(delivery);
      changes.notify();
    });
    await turn(t, own.id, 'hooks-lead', 'hello');
    await changes.until(() => settled.length === reach.length, 'an attempt of every delivery');
    stop();
    for (const delivery of settled) expect(delivery.attempts[0]).toMatchObject({ response_code: null, error: EGRESS_REFUSED, duration_ms: 0 });
    expect(target.hits).toEqual([]);
  });

  it("refuses the server's own port even where loopback is allowed", async () => {
    const open = await startInstance({ listen: true });
    try {
      const structure = (await open.createStructure(ADMIN_TOKEN, 'exec-team', 'Self')) as unknown as { id: string };
      const self = `${open.url}/api/org/health`;
      const skill = await call(open, 'POST', '/api/org/knowledge/skills', { structure_id: structure.id, slug: 'egress-self', frontmatter: toolSkill(self), body: TOOL_BODY });
      expect([skill.status, skill.json.code]).toEqual([400, 'egress_refused']);
      expect(skill.json.detail).toMatch(/this server's own address and port, which org never calls/);
      await open.app.skills.upsert({ slug: 'egress-self', frontmatter: toolSkill(self.replace('127.0.0.1', 'localhost')), body: TOOL_BODY, structureId: structure.id });
      const result = toolResult(await turn(open, structure.id, 'exec-cfo', '/egress-self'));
      expect(result).toMatchObject({ ok: false, refused: true });
      expect(result.error).toMatch(/own address and port/);
    } finally {
      await open.close();
    }
  });
});

describe('egress follows no redirects', () => {
  let t: TestInstance;
  let target: Target;
  let redirector: Target;
  let structureId: string;

  beforeAll(async () => {
    target = await startTarget();
    // Everything it gets is sent on to the target, with the status the path names.
    redirector = await startTarget((request, response) => {
      const status = Number(/\/(30\d)/.exec(request.url ?? '')?.[1] ?? 302);
      request.resume();
      request.on('end', () => response.writeHead(status, { location: `http://127.0.0.1:${target.port}/inside` }).end());
    });
    // Both on loopback, which is allowed: only the redirect could take a request to the target.
    t = await startInstance({ listen: true });
    structureId = ((await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Redirects')) as unknown as { id: string }).id;
  });
  afterAll(async () => {
    await t?.close();
    await target?.close();
    await redirector?.close();
  });

  it('a tool answering a redirect is a failed tool_result with its status; the location is not called', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const slug = `egress-redirect-${status}`;
      const written = await call(t, 'POST', '/api/org/knowledge/skills', { structure_id: structureId, slug, frontmatter: toolSkill(`http://127.0.0.1:${redirector.port}/${status}`), body: TOOL_BODY });
      expect(written.status).toBe(201);
      expect(toolResult(await turn(t, structureId, 'exec-cfo', `/${slug}`))).toMatchObject({ ok: false, status });
    }
    expect(target.hits).toEqual([]);
  });

  it('a container answering a redirect ends the turn with its status', async () => {
    const patched = await call(t, 'PATCH', `/api/org/structures/${structureId}/agents/exec-cto`, { container_url: `http://127.0.0.1:${redirector.port}/307` });
    expect(patched.status).toBe(200);
    const events = await turn(t, structureId, 'exec-cto', 'hello');
    expect(events).toEqual([expect.objectContaining({ type: 'error', content: { message: `container at http://127.0.0.1:${redirector.port}/307 answered HTTP 307` } })]);
    expect(target.hits).toEqual([]);
  });

  it('a webhook receiver answering a redirect is a failed attempt with its status', async () => {
    const hook = await call(t, 'POST', `/api/org/structures/${structureId}/webhooks`, { url: `http://127.0.0.1:${redirector.port}/308`, events: ['run.completed'] });
    expect(hook.status).toBe(201);
    let attempted: Delivery | undefined;
    const changes = notifier();
    const stop = t.app.webhooks.onDelivery((delivery) => {
      if (delivery.attempts.length > 0) attempted = delivery;
      changes.notify();
    });
    await turn(t, structureId, 'exec-ceo', 'hello');
    await changes.until(() => attempted !== undefined, 'the first attempt');
    stop();
    expect(attempted).toMatchObject({ status: 'pending', response_code: 308 });
    expect(target.hits).toEqual([]);
  });
});

describe('egress allows what --allow-egress names', () => {
  let target: Target;
  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(async () => {
    await target?.close();
  });

  /** Registration of a container_url on an instance allowing `allow`: the status. */
  async function registers(allow: string[], urls: string[]): Promise<number[]> {
    const t = await startInstance({ listen: true, config: { egressAllow: allow } });
    try {
      const structure = (await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Allow')) as unknown as { id: string; agents: { id: string; parent_id: string | null }[] };
      const rootId = structure.agents.find((agent) => agent.parent_id === null)!.id;
      const statuses: number[] = [];
      for (const [i, url] of urls.entries()) statuses.push((await call(t, 'POST', `/api/org/structures/${structure.id}/agents`, { role_id: `allow-n${i}`, label: 'N', parent_id: rootId, container_url: url })).status);
      return statuses;
    } finally {
      await t.close();
    }
  }

  it('an address allows that address only, a range its addresses, a class its class', async () => {
    const port = target.port;
    expect(await registers(['127.0.0.1'], [`http://127.0.0.1:${port}`, `http://2130706433:${port}`, `http://[::ffff:127.0.0.1]:${port}`, `http://127.0.0.2:${port}`, `http://[::1]:${port}`])).toEqual([201, 201, 201, 400, 400]);
    expect(await registers(['127.0.0.0/30'], [`http://127.0.0.2:${port}`, `http://127.0.0.9:${port}`])).toEqual([201, 400]);
    expect(await registers(['private'], ['http://10.1.2.3/', 'http://[fd00::5]/', 'http://127.0.0.1/', 'http://169.254.1.1/'])).toEqual([201, 201, 400, 400]);
  });

  it('a cloud metadata address only when named exactly, not by private or a range around it', async () => {
    expect(await registers(['private', '169.254.0.0/16', 'fd00::/8'], ['http://169.254.169.254/', 'http://[fd00:ec2::254]/', 'http://169.254.10.10/'])).toEqual([400, 400, 201]);
    expect(await registers(['169.254.169.254'], ['http://169.254.169.254/'])).toEqual([201]);
  });

  it('allowed, the call reaches the address: a tool on loopback answers the turn', async () => {
    const t = await startInstance({ listen: true, config: { egressAllow: ['127.0.0.1'] } });
    try {
      const structure = (await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Allowed')) as unknown as { id: string };
      const written = await call(t, 'POST', '/api/org/knowledge/skills', { structure_id: structure.id, slug: 'egress-allowed', frontmatter: toolSkill(`http://127.0.0.1:${target.port}/tool`), body: TOOL_BODY });
      expect(written.status).toBe(201);
      expect(toolResult(await turn(t, structure.id, 'exec-cfo', '/egress-allowed'))).toEqual({ ok: true, status: 200, body: { secret: 'from the inside' } });
      expect(target.hits).toEqual(['POST /tool']);
    } finally {
      await t.close();
      target.hits.length = 0;
    }
  });

  it('org serve --allow-egress loopback runs the example container on this machine; without it the node is refused', async () => {
    ensureBuilt();
    const agent: ContainerAgent = await startContainerAgent({ log: () => undefined });
    const home = await mkdtemp(join(tmpdir(), 'org-egress-serve-'));
    const env = { ORG_ADMIN_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: join(home, 'config'), ORG_EGRESS_ALLOW: '' };
    try {
      for (const args of [['--allow-egress', 'loopback'], []]) {
        const serve = await startServe({ home, env, args: ['--no-demo', ...args] });
        try {
          const headers = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
          const created = (await (await fetch(`${serve.url}/api/org/structures`, { method: 'POST', headers, body: JSON.stringify({ name: `S${args.length}`, template: 'blank' }) })).json()) as { id: string };
          const node = await fetch(`${serve.url}/api/org/structures/${created.id}/agents`, { method: 'POST', headers, body: JSON.stringify({ role_id: 'demo-agent', label: 'Agent', parent_id: null, container_url: agent.url }) });
          if (args.length === 0) {
            expect(node.status).toBe(400);
            expect(((await node.json()) as { detail: string }).detail).toMatch(/--allow-egress loopback/);
            continue;
          }
          expect(node.status).toBe(201);
          const sync = await fetch(`${serve.url}/api/org/chat/message/sync`, { method: 'POST', headers, body: JSON.stringify({ structure_id: created.id, role_id: 'demo-agent', message: 'hello there' }) });
          expect(((await sync.json()) as { events: Event[] }).events.at(-1)?.type).toBe('complete');
        } finally {
          await serve.stop('SIGTERM');
        }
      }
    } finally {
      await agent.close();
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);
});
