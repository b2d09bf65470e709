/**
 * Attachment media types are validated at upload (issue 28, finding 15), on a real
 * listening server, by every path a file enters a shelf: chat attachments (400 naming the
 * member), the MCP `do` tool (a tool error), inbound e-mail (a part whose type is no
 * media type is kept as `application/octet-stream`), and a runtime's own artifacts. A
 * record stored before the check (a type with CRLF in the shelf's listing) downloads as
 * `application/octet-stream`, never 500.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import nodemailer from 'nodemailer';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundHeaders } from '../src/core/inbound/index.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const SECRET = 'inbound-secret-0123456789abcdef';
const DOMAIN = 'org.example.com';

/** Spellings that are not media types, CRLF injection first. */
const NOT_MEDIA_TYPES = ['text/plain\r\nX-Injected: 1', 'text/plain\n', 'text', 'text/', '/csv', 'text/ csv', 'text/csv; charset', 'text/csv;\u0000', 'tëxt/csv', 'text/csv; a="b\rc"'];

describe('attachment media types are validated at upload', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structureId: string;
  const roleId = 'exec-ceo';

  beforeAll(async () => {
    // A runtime that also writes an artifact with a type that is no media type.
    const runtime: AgentRuntime = {
      name: 'typed',
      async run(turn, emit, tools) {
        const name = await tools.writeArtifact('agent-out.txt', 'hello', 'text/plain\r\nSet-Cookie: x=1');
        await emit({ type: 'complete', content: { summary: `got ${turn.attachments.length}`, artifacts: [name] } });
      },
    };
    t = await startInstance({ listen: true, config: { inboundSecret: SECRET, inboundDomain: DOMAIN }, deps: { runtime: () => runtime } });
    owner = await t.createUser('media-owner@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Media')).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await request(`${t.url}${path}`, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${owner.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  };
  const artifacts = async () => {
    const listed = await call('GET', `/api/org/structures/${structureId}/agents/${roleId}/artifacts`);
    expect(listed.status).toBe(200);
    return (JSON.parse(listed.text) as { artifacts: { name: string; content_type: string }[] }).artifacts;
  };
  const attachment = (contentType: string) => ({ name: 'a.txt', content_base64: Buffer.from('x').toString('base64'), content_type: contentType });

  it('chat attachments: every spelling that is no media type is refused with 400 naming the member, and nothing is staged', async () => {
    for (const contentType of NOT_MEDIA_TYPES) {
      const refused = await call('POST', '/api/org/chat/message/sync', { structure_id: structureId, role_id: roleId, message: 'typed', attachments: [attachment(contentType)] });
      expect(refused.status, JSON.stringify(contentType)).toBe(400);
      const problem = JSON.parse(refused.text) as { code: string; errors: { path: string; message: string }[] };
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors).toEqual([expect.objectContaining({ path: 'body.attachments.0.content_type', message: expect.stringContaining('media type') })]);
    }
    expect((await artifacts()).map((artifact) => artifact.name)).not.toContain('a.txt');
    // Media types with parameters, quoted or not, are accepted and kept as sent.
    const accepted = await call('POST', '/api/org/chat/message/sync', {
      structure_id: structureId,
      role_id: roleId,
      message: 'typed',
      attachments: [{ ...attachment('text/plain; charset="utf-8"'), name: 'quoted.txt' }, { ...attachment('application/vnd.ms-excel'), name: 'sheet.xls' }],
    });
    expect(accepted.status, accepted.text).toBe(200);
    const types = new Map((await artifacts()).map((artifact) => [artifact.name, artifact.content_type]));
    expect(types.get('quoted.txt')).toBe('text/plain; charset="utf-8"');
    expect(types.get('sheet.xls')).toBe('application/vnd.ms-excel');
    // What the runtime wrote with a broken type is kept, and served, as an octet stream.
    expect(types.get('agent-out.txt')).toBe('application/octet-stream');
  });

  it('the MCP do tool refuses an attachment whose type is no media type, as a tool error', async () => {
    const minted = await call('POST', `/api/org/structures/${structureId}/agents/${roleId}/mcp-key`, { label: 'media' });
    const token = (JSON.parse(minted.text) as { token: string }).token;
    const client = new Client({ name: 'media-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', t.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      const result = await client.callTool({ name: 'do', arguments: { message: 'typed', attachments: [attachment('text/plain\r\nX-Injected: 1')] } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('media type');
    } finally {
      await client.close();
    }
  });

  it('inbound e-mail: a part whose type is no media type is kept as application/octet-stream', async () => {
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const { message } = (await transport.sendMail({
      from: 'media-owner@example.com',
      to: `${roleId}.${structureId}@${DOMAIN}`,
      subject: 'typed',
      text: 'typed by mail',
      attachments: [{ filename: 'odd.bin', content: 'odd', contentType: 'text/pl@in' }],
    })) as { message: Buffer };
    const response = await fetch(`${t.url}/api/org/inbound/email`, { method: 'POST', headers: { 'content-type': 'message/rfc822', ...inboundHeaders(SECRET, message) }, body: message });
    expect(response.status).toBe(202);
    await t.app.inbound.idle();
    const odd = (await artifacts()).find((artifact) => artifact.name === 'odd.bin');
    expect(odd?.content_type).toBe('application/octet-stream');
  });

  it('a record stored with a type that is no media type downloads as application/octet-stream, never 500', async () => {
    const node = t.app.nodes.get(structureId, roleId);
    const listing = join(t.app.nodes.dir(structureId, node.id), 'artifacts.json');
    const doc = JSON.parse(await readFile(listing, 'utf8')) as { artifacts: { name: string; content_type: string }[] };
    for (const artifact of doc.artifacts) if (artifact.name === 'quoted.txt') artifact.content_type = 'text/plain\r\nX-Injected: 1';
    await writeFile(listing, JSON.stringify(doc));
    // A fresh app reads the listing as stored.
    const again = await startInstance({ listen: true, home: t.home });
    try {
      const downloaded = await request(`${again.url}/api/org/structures/${structureId}/agents/${roleId}/artifacts/quoted.txt`, { headers: { authorization: `Bearer ${owner.token}` } });
      expect(downloaded.statusCode).toBe(200);
      expect(downloaded.headers['content-type']).toBe('application/octet-stream');
      expect(downloaded.headers['x-injected']).toBeUndefined();
      expect(await downloaded.body.text()).toBe('x');
    } finally {
      await again.close();
    }
  });
});
