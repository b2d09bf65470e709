/**
 * Request ids (issue 18, item 4), against a listening server: a usable `X-Request-Id`
 * is kept and anything else replaced by a UUID; the id comes back on every response
 * (JSON, problems, SSE streams, errors raised before routing and requests the HTTP
 * parser refused) and names the problem in `instance`.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('X-Request-Id', () => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await startInstance({ listen: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('echoes a caller’s id on a success and names problems with it', async () => {
    const ok = await fetch(`${t.url}/api/org/health`, { headers: { 'x-request-id': 'proxy-7f3a.42' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('proxy-7f3a.42');

    const refused = await fetch(`${t.url}/api/org/structures`, { headers: { 'x-request-id': 'abc-123' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('abc-123');
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ code: 'unauthorized', instance: 'urn:org:request:abc-123' });
  });

  it('generates a fresh UUID when none is given, or when the given one is unusable', async () => {
    const ids = new Set<string>();
    for (const header of [undefined, undefined, 'x'.repeat(201), 'has space', 'quote"d']) {
      const response = await fetch(`${t.url}/api/org/nowhere`, { headers: header === undefined ? {} : { 'x-request-id': header } });
      expect(response.status).toBe(404);
      const id = response.headers.get('x-request-id') ?? '';
      expect(id).toMatch(UUID);
      expect((await response.json()) as Record<string, unknown>).toMatchObject({ instance: `urn:org:request:${id}` });
      ids.add(id);
    }
    expect(ids.size).toBe(5);
  });

  it('is on a chat stream’s headers', async () => {
    const structure = await t.createStructure(ADMIN_TOKEN, 'exec-team', 'Ids');
    const response = await fetch(`${t.url}/api/org/chat/message`, {
      method: 'POST',
      headers: { ...t.auth(), 'content-type': 'application/json', 'x-request-id': 'stream-1' },
      body: JSON.stringify({ structure_id: structure.id, role_id: structure.agents[0]!.role_id, message: 'hello' }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-request-id')).toBe('stream-1');
    expect(await response.text()).toContain('"type":"complete"');
  });

  it('is on errors raised before routing and on requests the HTTP parser refused', async () => {
    const badUrl = await fetch(`${t.url}/api/org/structures/%ZZ`, { headers: { 'x-request-id': 'bad-url-1' } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.headers.get('x-request-id')).toBe('bad-url-1');
    expect(await badUrl.json()).toMatchObject({ instance: 'urn:org:request:bad-url-1' });

    const address = new URL(t.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(address.port), address.hostname);
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write('NOT HTTP AT ALL\r\n\r\n');
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
    const id = /\r\nx-request-id: (\S+)\r\n/i.exec(raw)?.[1] ?? '';
    expect(id).toMatch(UUID);
    expect(raw).toContain(`"instance":"urn:org:request:${id}"`);
  });
});
