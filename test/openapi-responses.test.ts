/**
 * The OpenAPI document tells the truth: every operation it lists is driven with valid
 * input on a real listening instance (composed as `org serve` is, /mcp and the inbound
 * webhooks included), and each answer's status, media type and body are checked with
 * Ajv against what the document says of that operation. Chat streams are checked event
 * by event against the `ChatEvent` schema. A few error answers are checked the same
 * way. The test fails when an operation of the document was not driven, so a new route
 * comes with its drive here.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundHeaders } from '../src/core/inbound/index.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { dispatchRuntime } from './helpers/chat.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { parseSse } from './helpers/sse.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

// ajv-formats is CommonJS; its default export arrives as the module namespace under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

const SECRET = 'inbound-secret-0123456789abcdef';
const DOMAIN = 'org.example.com';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type Document = { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>> };

/** A runtime that runs until its turn is cancelled. */
const waiting: AgentRuntime = {
  name: 'waiting',
  async run(_turn, emit, _tools, signal) {
    await emit({ type: 'thought', content: 'waiting to be cancelled' });
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  },
};

describe('live answers match the OpenAPI document', () => {
  let t: TestInstance;
  let document: Document;
  let ajv: Ajv2020;
  const driven = new Set<string>();
  const checked: string[] = [];

  /** The operation of the document with this id, and where it is. */
  const find = (operationId: string) => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) if (item[method]?.operationId === operationId) return { path, method, operation: item[method] };
    }
    throw new Error(`no operation ${operationId} in the document`);
  };

  /** The compiled schema of one documented response body. */
  const validatorOf = (path: string, method: string, status: string, mediaType: string) => {
    const pointer = ['paths', path, method, 'responses', status, 'content', mediaType, 'schema']
      .map((segment) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const validate = ajv.getSchema(`openapi.json#/${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    return validate;
  };

  /** Checks one answer against the document; returns the parsed body. */
  const expectDocumented = async (operationId: string, response: Response): Promise<unknown> => {
    const { path, method, operation } = find(operationId);
    const where = `${operationId} (${method.toUpperCase()} ${path}) → ${response.status}`;
    const documented = operation.responses[String(response.status)];
    expect(documented, `${where}: status not documented`).toBeDefined();
    const text = await response.text();
    checked.push(where);
    if (response.status === 204 || text === '') {
      expect(text, where).toBe('');
      expect(documented!.content, `${where}: documented with a body`).toBeUndefined();
      return undefined;
    }
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = Object.keys(documented!.content ?? {});
    expect(media.includes(mediaType) || media.includes('*/*'), `${where}: ${mediaType} not among ${media.join(', ')}`).toBe(true);
    if (mediaType === 'text/event-stream') {
      // Chat streams carry ChatEvents; the MCP transport carries JSON-RPC messages.
      const chatEvent = ajv.getSchema('openapi.json#/components/schemas/ChatEvent')!;
      const frames = parseSse(text).frames;
      for (const frame of frames) {
        if (operationId.startsWith('mcp')) expect(JSON.parse(frame.data ?? '{}'), where).toMatchObject({ jsonrpc: '2.0' });
        else expect(chatEvent(frame.event), `${where}: ${JSON.stringify(frame.event)} ${ajv.errorsText(chatEvent.errors)}`).toBe(true);
      }
      return frames;
    }
    if (!mediaType.endsWith('json')) return text;
    const body: unknown = JSON.parse(text);
    const validate = validatorOf(path, method, String(response.status), mediaType);
    expect(validate(body), `${where}: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 2000)}`).toBe(true);
    return body;
  };

  /** Calls an operation with a JSON body (or none) and checks the answer; returns its body. */
  const call = async <T = Record<string, unknown>>(
    operationId: string,
    path: string,
    options: { method?: string; token?: string | null; body?: unknown; headers?: Record<string, string>; raw?: Buffer } = {},
  ): Promise<{ status: number; body: T; headers: Headers }> => {
    const { method } = find(operationId);
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? ADMIN_TOKEN : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined;
    if (options.raw) body = options.raw;
    else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(`${t.url}${path}`, { method: method.toUpperCase(), headers, ...(body === undefined ? {} : { body }) });
    driven.add(operationId);
    const status = response.status;
    const responseHeaders = response.headers;
    return { status, headers: responseHeaders, body: (await expectDocumented(operationId, response)) as T };
  };

  beforeAll(async () => {
    t = await startInstance({
      listen: true,
      config: { inboundSecret: SECRET, inboundDomain: DOMAIN },
      deps: { runtime: () => dispatchRuntime({ wait: waiting }, createWorkRuntime(1)) },
    });
    document = (await (await fetch(`${t.url}/api/org/openapi.json`)).json()) as Document;
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(document, 'openapi.json');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every operation, driven with valid input, answers as documented', async () => {
    // Instance and users.
    expect((await call('getHealth', '/api/org/health', { token: null })).status).toBe(200);
    expect((await call('getReadiness', '/api/org/health/ready', { token: null })).status).toBe(200);
    expect((await call('getOpenApiDocument', '/api/org/openapi.json', { token: null })).status).toBe(200);
    const created = await call<{ token: string; user: { id: string } }>('createUser', '/api/org/users', { body: { email: 'owner@example.com' } });
    expect(created.status).toBe(201);
    const owner = created.body.token;
    expect((await call('whoAmI', '/api/org/whoami', { token: owner })).status).toBe(200);
    const spare = (await call<{ token: string; user: { id: string } }>('createUser', '/api/org/users', { body: { email: 'spare@example.com' } })).body;
    expect((await call('rotateMyToken', '/api/org/users/me/token', { token: spare.token })).status).toBe(200);
    expect((await call('resetUserToken', `/api/org/users/${spare.user.id}/token`)).status).toBe(200);

    // Structures and nodes.
    const structure = (await call<{ id: string; agents: { id: string; role_id: string }[] }>('createStructure', '/api/org/structures', { token: owner, body: { name: 'Acme', template: 'exec-team' } })).body;
    const s = `/api/org/structures/${structure.id}`;
    const root = structure.agents[0]!;
    const role = structure.agents[1]!.role_id;
    expect((await call('listStructures', '/api/org/structures', { token: owner })).status).toBe(200);
    expect((await call('getStructure', s, { token: owner })).status).toBe(200);
    expect((await call('addNode', `${s}/agents`, { token: owner, body: { role_id: 'ops-temp', label: 'Temp', parent_id: root.id } })).status).toBe(201);
    expect((await call('updateNode', `${s}/agents/ops-temp`, { token: owner, body: { label: 'Temporary', x: 10 } })).status).toBe(200);
    expect((await call('deleteNode', `${s}/agents/ops-temp`, { token: owner })).status).toBe(204);
    expect((await call('listArchivedNodes', `${s}/archive`, { token: owner })).status).toBe(200);
    expect((await call('restoreNode', `${s}/agents/ops-temp/restore`, { token: owner })).status).toBe(201);
    const timeline = await call<{ entries: { type: string }[] }>('getNodeTimeline', `${s}/agents/ops-temp/timeline`, { token: owner });
    expect(timeline.body.entries.length).toBeGreaterThanOrEqual(3);

    // MCP keys and the MCP endpoint.
    const key = (await call<{ id: string; token: string }>('mintMcpKey', `${s}/agents/${role}/mcp-key`, { token: owner, body: { label: 'laptop' } })).body;
    expect((await call('listMcpKeys', `${s}/agents/${role}/mcp-keys`, { token: owner })).status).toBe(200);
    const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'openapi-test', version: '1' } } };
    const opened = await call('mcpPost', '/mcp', { token: key.token, body: initialize, headers: mcpHeaders });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    const inSession = { ...mcpHeaders, 'mcp-session-id': session! };
    expect((await call('mcpPost', '/mcp', { token: key.token, body: { jsonrpc: '2.0', method: 'notifications/initialized' }, headers: inSession })).status).toBe(202);
    // GET /mcp opens the session's notification stream: check its head, then leave it.
    const stream = new AbortController();
    const listening = await fetch(`${t.url}/mcp`, { headers: { ...inSession, authorization: `Bearer ${key.token}` }, signal: stream.signal });
    driven.add('mcpGet');
    expect(listening.status).toBe(200);
    expect(Object.keys(find('mcpGet').operation.responses['200']!.content!)).toContain(listening.headers.get('content-type')!.split(';')[0]);
    stream.abort();
    expect((await call('mcpDelete', '/mcp', { token: key.token, headers: inSession })).status).toBe(200);
    expect((await call('revokeMcpKey', `${s}/agents/${role}/mcp-key/${key.id}`, { token: owner })).status).toBe(204);

    // Webhooks (registered and removed before any turn runs, so nothing is delivered).
    const hook = await call<{ id: string; secret: string }>('createWebhook', `${s}/webhooks`, { token: owner, body: { url: 'https://hooks.example.com/org', events: ['run.completed'] } });
    expect(hook.status).toBe(201);
    expect((await call('listWebhooks', `${s}/webhooks`, { token: owner })).status).toBe(200);
    expect((await call('listWebhookDeliveries', `${s}/webhooks/${hook.body.id}/deliveries`, { token: owner })).status).toBe(200);
    expect((await call('deleteWebhook', `${s}/webhooks/${hook.body.id}`, { token: owner })).status).toBe(204);

    // The audit log (what was done so far: the structure, its nodes, keys and webhook).
    const audited = await call<{ entries: unknown[]; next_before: string | null }>('getStructureAudit', `${s}/audit?limit=2`, { token: owner });
    expect(audited.body.entries).toHaveLength(2);
    expect((await call('getStructureAudit', `${s}/audit?before=${audited.body.next_before!}&action=node.`, { token: owner })).status).toBe(200);
    expect((await call('getAudit', '/api/org/audit?action=user.create')).status).toBe(200);

    // Members and invites.
    expect((await call('shareStructure', `${s}/share`, { token: owner, body: { email: 'guest@example.com', role: 'viewer' } })).status).toBe(200);
    expect((await call('listMembers', `${s}/members`, { token: owner })).status).toBe(200);
    const outbox = join(t.home, '.org', 'outbox');
    const mails = await Promise.all((await readdir(outbox)).map((name) => readFile(join(outbox, name), 'utf8')));
    const invite = /org_inv_[0-9A-Za-z]+/.exec(mails.join('\n').replace(/=\r?\n/g, ''))?.[0];
    expect(invite).toBeTruthy();
    expect((await call('previewInvite', '/api/org/invites/preview', { token: null, body: { token: invite } })).status).toBe(200);
    const accepted = await call<{ user: { id: string } }>('acceptInvite', '/api/org/invites/accept', { token: null, body: { token: invite } });
    expect(accepted.status).toBe(200);
    const guest = `${s}/members/${accepted.body.user.id}`;
    expect((await call<{ role: string }>('changeMemberRole', guest, { token: owner, body: { role: 'operator' } })).body.role).toBe('operator');
    expect((await call('removeMember', guest, { token: owner })).status).toBe(204);
    await call('shareStructure', `${s}/share`, { token: owner, body: { email: 'later@example.com', role: 'viewer' } });
    const open = await call<{ invites: { id: string; email: string }[] }>('listMembers', `${s}/members`, { token: owner });
    const later = open.body.invites.find((entry) => entry.email === 'later@example.com')!;
    expect((await call('revokeInvite', `${s}/invites/${later.id}`, { token: owner })).status).toBe(204);

    // Skills.
    const skill = {
      structure_id: structure.id,
      slug: 'chase-late-invoices',
      frontmatter: { type: 'skill', name: 'Chase late invoices', category: 'finance', difficulty: 'low', tags: ['invoices'], status: 'complete', summary: 'Remind customers who pay late.' },
      body: '## [remind] Step 1: Send a reminder\n\nWrite to the customer.\n',
    };
    expect((await call('upsertSkill', '/api/org/knowledge/skills', { token: owner, body: skill })).status).toBe(201);
    expect((await call('upsertSkill', '/api/org/knowledge/skills', { token: owner, body: skill })).status).toBe(200);
    expect((await call('listSkills', `/api/org/knowledge/skills?structure_id=${structure.id}`, { token: owner })).status).toBe(200);
    expect((await call('getSkill', '/api/org/knowledge/skills/chase-late-invoices', { token: owner })).status).toBe(200);
    expect((await call('getSkillHistory', '/api/org/knowledge/skills/chase-late-invoices/history', { token: owner })).status).toBe(200);
    // Versions: an update keeps the replaced text, which is then a version to view and restore.
    expect((await call('upsertSkill', '/api/org/knowledge/skills', { token: owner, body: { ...skill, frontmatter: { ...skill.frontmatter, summary: 'Remind late payers.' } } })).status).toBe(200);
    const versions = await call<{ versions: { id: string }[] }>('listSkillVersions', `/api/org/knowledge/skills/chase-late-invoices/versions?structure_id=${structure.id}`, { token: owner });
    const kept = versions.body.versions[0]!.id;
    const viewed = await call<{ current: { etag: string } }>('getSkillVersion', `/api/org/knowledge/skills/chase-late-invoices/versions/${kept}?structure_id=${structure.id}`, { token: owner });
    expect(viewed.status).toBe(200);
    const restored = await call('restoreSkillVersion', `/api/org/knowledge/skills/chase-late-invoices/versions/${kept}/restore?structure_id=${structure.id}`, { token: owner, headers: { 'if-match': viewed.body.current.etag } });
    expect(restored.status).toBe(200);
    const found = await call<{ matches: unknown[] }>('searchSkills', '/api/org/knowledge/search', { token: owner, body: { structure_id: structure.id, query: 'late invoices' } });
    expect(found.body.matches.length).toBeGreaterThan(0);
    expect((await call('listSkillProblems', '/api/org/knowledge/problems', { token: owner })).status).toBe(200);
    expect((await call('listSkillGaps', `/api/org/knowledge/gaps?structure_id=${structure.id}`, { token: owner })).status).toBe(200);
    // Export answers a zip (read as bytes here, not as text), which the import then reads back (a dry run).
    const exported = await fetch(`${t.url}/api/org/knowledge/skills/chase-late-invoices/export?structure_id=${structure.id}`, { headers: { authorization: `Bearer ${owner}` } });
    driven.add('exportSkill');
    expect(exported.status).toBe(200);
    expect(Object.keys(find('exportSkill').operation.responses['200']!.content!)).toContain(exported.headers.get('content-type')!.split(';')[0]);
    const zip = Buffer.from(await exported.arrayBuffer());
    expect((await call('importSkills', `/api/org/knowledge/import?structure_id=${structure.id}`, { token: owner, raw: zip, headers: { 'content-type': 'application/zip' } })).status).toBe(200);
    expect((await call('deleteSkill', `/api/org/knowledge/skills/chase-late-invoices?structure_id=${structure.id}`, { token: owner })).status).toBe(204);
    expect((await call('listDeletedSkills', `/api/org/knowledge/deleted?structure_id=${structure.id}`, { token: owner })).status).toBe(200);
    expect((await call('restoreSkill', `/api/org/knowledge/skills/chase-late-invoices/restore?structure_id=${structure.id}`, { token: owner })).status).toBe(200);
    // An instance skill (the administrator writes it, naming no structure), forked into the structure.
    const { structure_id: _owned, ...instanceSkill } = { ...skill, slug: 'greet-visitors' };
    expect((await call('upsertSkill', '/api/org/knowledge/skills', { body: instanceSkill })).status).toBe(201);
    expect((await call('forkSkill', '/api/org/knowledge/skills/greet-visitors/fork', { token: owner, body: { structure_id: structure.id } })).status).toBe(201);

    // Chat: a streamed turn, its replay, a sync turn, the history, artifacts, a cancelled turn.
    const message = { structure_id: structure.id, role_id: role, message: 'write the weekly report' };
    const streamed = await call<{ event?: { type: string } }[]>('sendMessage', '/api/org/chat/message', { token: owner, body: message });
    expect(streamed.body.at(-1)?.event?.type).toBe('complete');
    const runId = streamed.headers.get('x-org-run-id')!;
    expect((await call('followRun', `/api/org/chat/runs/${runId}/events`, { token: owner })).status).toBe(200);
    expect((await call('followRun', `/api/org/chat/runs/${runId}/events`, { token: owner, headers: { 'last-event-id': String(streamed.body.length) } })).status).toBe(204);
    expect((await call<{ runs: { run_id: string }[] }>('findRuns', `/api/org/chat/runs?prefix=${runId.slice(0, 8)}`, { token: owner })).body.runs).toEqual([expect.objectContaining({ run_id: runId })]);
    expect((await call('sendMessageSync', '/api/org/chat/message/sync', { token: owner, body: message })).status).toBe(200);
    const history = await call<unknown[]>('getChatHistory', `/api/org/chat/history?structure_id=${structure.id}&role_id=${role}`, { token: owner });
    expect(history.body.length).toBeGreaterThanOrEqual(4);
    const artifacts = await call<{ artifacts: { name: string }[] }>('listArtifacts', `${s}/agents/${role}/artifacts`, { token: owner });
    const artifact = artifacts.body.artifacts[0]!.name;
    expect((await call('downloadArtifact', `${s}/agents/${role}/artifacts/${encodeURIComponent(artifact)}`, { token: owner })).body).toContain('# Report');
    const waitingTurn = await fetch(`${t.url}/api/org/chat/message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...message, message: 'wait for me' }),
    });
    const waitingRun = waitingTurn.headers.get('x-org-run-id')!;
    expect((await call('cancelRun', `/api/org/chat/runs/${waitingRun}/cancel`, { token: owner })).status).toBe(202);
    await expectDocumented('sendMessage', waitingTurn);
    expect((await call('getWorkspaceLog', `${s}/log`, { token: owner })).status).toBe(200);

    // A structure renamed, deleted into the archive and restored.
    const spare2 = (await call<{ id: string }>('createStructure', '/api/org/structures', { token: owner, body: { name: 'Spare', template: 'blank' } })).body;
    expect((await call('updateStructure', `/api/org/structures/${spare2.id}`, { token: owner, body: { name: 'Renamed' } })).status).toBe(200);
    expect((await call('deleteStructure', `/api/org/structures/${spare2.id}`, { token: owner })).status).toBe(204);
    expect((await call('listArchivedStructures', '/api/org/structures/archived', { token: owner })).status).toBe(200);
    expect((await call('restoreStructure', `/api/org/structures/${spare2.id}/restore`, { token: owner })).status).toBe(200);

    // The inbound channels, signed.
    const text = JSON.stringify({ structure_id: structure.id, role_id: role, text: 'please summarise', sender: '+15550100' });
    expect((await call('receiveChannelMessage', '/api/org/inbound/message', { token: null, raw: Buffer.from(text), headers: { 'content-type': 'application/json', ...inboundHeaders(SECRET, text) } })).status).toBe(202);
    const email = Buffer.from(
      [`From: Owner <owner@example.com>`, `To: ${role}.${structure.id}@${DOMAIN}`, 'Subject: Numbers', 'Message-ID: <m1@example.com>', 'Content-Type: text/plain; charset=utf-8', '', 'Send me the numbers.', ''].join('\r\n'),
    );
    expect((await call('receiveEmail', '/api/org/inbound/email', { token: null, raw: email, headers: { 'content-type': 'message/rfc822', ...inboundHeaders(SECRET, email) } })).status).toBe(202);

    const all = Object.values(document.paths).flatMap((item) => METHODS.flatMap((method) => (item[method] ? [item[method].operationId] : [])));
    expect(all.filter((id) => !driven.has(id)), 'operations of the document that this test does not drive').toEqual([]);
  });

  it('error answers are documented problem details too', async () => {
    const owner = (await t.createUser('errors@example.com')).token;
    const before = checked.length;
    expect((await call('getSkill', '/api/org/knowledge/skills/no-such-skill', { token: owner })).status).toBe(404);
    const invalid = await call<{ errors: unknown[] }>('searchSkills', '/api/org/knowledge/search', { token: owner, body: { query: 'x', limit: 0 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.length).toBeGreaterThan(0);
    expect((await call('listStructures', '/api/org/structures', { token: null })).status).toBe(401);
    expect((await call('createUser', '/api/org/users', { token: owner, body: { email: 'x@example.com' } })).status).toBe(403);
    expect((await call('receiveEmail', '/api/org/inbound/email', { token: null, raw: Buffer.from('x'), headers: { 'content-type': 'message/rfc822' } })).status).toBe(401);
    expect(checked.length - before, 'error answers checked against the document').toBe(5);
  });
});
