/**
 * Errors raised below the routes leave as problem+json too (issue 10, items 6 and 7):
 * bad percent-encoding and over-long path segments (Fastify's router), requests Node's
 * HTTP parser refuses (malformed request lines, bad headers, oversized heads), and
 * `Expect: 100-continue` uploads over the body limit, which get 413 before `100 Continue`
 * so the client never sends the body. Written as raw bytes on a real socket, since
 * `inject` never reaches the parser.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';
import { expectProblem } from './helpers/problem.js';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent, interim responses included. */
  raw: string;
}

/** Parses the last (final) response of what a server sent. */
function parse(raw: string): RawResponse {
  const responses = raw.split(/(?=HTTP\/1\.1 \d{3} )/).filter(Boolean);
  const final = responses.at(-1) ?? '';
  const [head = '', body = ''] = final.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, raw };
}

function expectRawProblem(response: RawResponse, status: number, code: string): Record<string, unknown> {
  expect(response.status, response.raw.slice(0, 300)).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `urn:org:problem:${code}`, title: expect.any(String), detail: expect.any(String) });
  expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
  return body;
}

describe('framework-level errors are problem+json', () => {
  let t: TestInstance;
  let port: number;

  beforeAll(async () => {
    t = await startInstance({ listen: true, config: { bodyLimit: 64 * 1024 } });
    port = Number(new URL(t.url).port);
  });
  afterAll(async () => {
    await t.close();
  });

  /**
   * Writes `request` on a fresh connection and resolves with what came back once the
   * server closed it (or once `until` matches what was received).
   */
  function raw(request: string | Buffer, until?: (received: string) => boolean): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received += chunk;
        if (until?.(received)) socket.destroy();
      });
      socket.on('close', () => resolve(parse(received)));
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNRESET' || error.code === 'EPIPE') resolve(parse(received));
        else reject(error);
      });
      socket.write(request);
    });
  }
  const completeResponse = (received: string) => {
    const final = parse(received);
    return final.status >= 200 && final.headers['content-length'] !== undefined && Buffer.byteLength(final.body) >= Number(final.headers['content-length']);
  };
  const get = (path: string, extra = '') => raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n${extra}Connection: close\r\n\r\n`);

  it('bad percent-encoding in the path → 400 invalid_request', async () => {
    for (const path of ['/api/org/structures/%ZZ', '/api/org/structures/%E0%A4%A', '/api/org/knowledge/skills/%', '/api/org/structures/%C0%AF/agents']) {
      const body = expectRawProblem(await get(path), 400, 'invalid_request');
      expect(body.detail).toContain('percent');
    }
    // The same through inject (the router, without the socket).
    expectProblem(await t.server.inject({ method: 'GET', url: '/api/org/structures/%ZZ', headers: t.auth() }), 400, 'invalid_request');
  });

  it('a path segment over the router limit → 414 uri_too_long; under it, an invalid id is a 400 from the schema', async () => {
    expectRawProblem(await get(`/api/org/structures/${'a'.repeat(3000)}`), 414, 'uri_too_long');
    expectRawProblem(await get(`/api/org/knowledge/skills/${'a'.repeat(3000)}`), 414, 'uri_too_long');
    expectRawProblem(await get(`/api/org/structures/${'a'.repeat(150)}`), 400, 'invalid_request');
    expectRawProblem(await get(`/api/org/knowledge/skills/${'a'.repeat(150)}`), 400, 'invalid_request');
  });

  it('a request line and headers over 16 KiB → 431 headers_too_large', async () => {
    expectRawProblem(await get(`/api/org/structures?x=${'a'.repeat(20_000)}`), 431, 'headers_too_large');
    expectRawProblem(await get('/api/org/structures', `X-Big: ${'b'.repeat(20_000)}\r\n`), 431, 'headers_too_large');
  });

  it('bytes that are not HTTP/1.1 → 400 invalid_request, and the server goes on serving', async () => {
    const cases: (string | Buffer)[] = [
      'HELLO\r\n\r\n',
      'GET /api/org/health HTTP/1.1\r\nBad Header Name: x\r\n\r\n',
      'GET /api/org/health HTTP/9.9\r\nHost: x\r\n\r\n',
      'GET /api/org/health HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
      'POST /api/org/structures HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nZZZ\r\n',
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]),
      'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
    ];
    for (const request of cases) expectRawProblem(await raw(request), 400, 'invalid_request');
    const health = await fetch(`${t.url}/api/org/health`);
    expect(health.status).toBe(200);
  });

  it('Expect: 100-continue over the body limit → 413 problem before 100 Continue; the body is never asked for', async () => {
    const head = (length: number) =>
      `POST /api/org/structures HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;
    const before = t.app.structures.summaries(null).length;
    const refused = await raw(head(10 * 1024 * 1024), completeResponse);
    expect(refused.raw).not.toContain('100 Continue');
    const problem = expectRawProblem(refused, 413, 'payload_too_large');
    expect(problem.detail).toContain('larger than the server accepts');
    expect(refused.headers.connection).toBe('close');

    // Within the limit the client is told to go on, and the upload works.
    const body = JSON.stringify({ name: 'Continued', template: 'blank' });
    const accepted = await new Promise<RawResponse>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      let sentBody = false;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        received += chunk;
        if (!sentBody && received.includes('100 Continue\r\n\r\n')) {
          sentBody = true;
          socket.write(body);
        }
        if (sentBody && completeResponse(received)) socket.end();
      });
      socket.on('close', () => resolve(parse(received)));
      socket.on('error', reject);
      socket.write(head(Buffer.byteLength(body)));
    });
    expect(accepted.raw.startsWith('HTTP/1.1 100 Continue')).toBe(true);
    expect(accepted.status, accepted.raw).toBe(201);
    expect(t.app.structures.summaries(null).length).toBe(before + 1);
  });

  it('Expect: 100-continue over the limit, from a real HTTP client: 413 and no body sent', async () => {
    const { request } = await import('node:http');
    const result = await new Promise<{ status: number; continued: boolean; type: string | undefined }>((resolve, reject) => {
      let continued = false;
      const req = request(`${t.url}/api/org/structures`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': 1024 * 1024, expect: '100-continue' },
      });
      req.on('continue', () => {
        continued = true;
        req.end('x'.repeat(1024 * 1024));
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, continued, type: res.headers['content-type'] }));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(result).toEqual({ status: 413, continued: false, type: expect.stringMatching(/^application\/problem\+json/) });
  });
});
