import Fastify, { type FastifyInstance } from 'fastify';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { COMPRESSORS, registerCompressedBodies, shareBody, type Compress } from './compressed-bodies.js';
import type { Encoding } from './compression.js';

const body = Buffer.from(JSON.stringify({ agents: Array.from({ length: 200 }, (_, i) => ({ id: i, label: `node ${i}` })) }));
const small = Buffer.from('{"ok":true}');

let server: FastifyInstance;
afterEach(async () => server.close());

/** A server whose compressors count their calls. */
async function serve() {
  const calls: Record<Encoding, number> = { br: 0, gzip: 0, deflate: 0 };
  const counting = (encoding: Encoding): Compress => (input, callback) => {
    calls[encoding]++;
    COMPRESSORS[encoding](input, callback);
  };
  server = Fastify();
  registerCompressedBodies(server, { compressors: { br: counting('br'), gzip: counting('gzip'), deflate: counting('deflate') } });
  const shared = shareBody(body);
  server.get('/shared', (_request, reply) => void reply.type('application/json').send(shared));
  server.get('/small', (_request, reply) => void reply.type('application/json').send(shareBody(small)));
  server.get('/fresh', (_request, reply) => void reply.type('application/json').send(Buffer.from(body)));
  await server.ready();
  return calls;
}

const get = (url: string, encoding?: string) => server.inject({ url, headers: encoding === undefined ? {} : { 'accept-encoding': encoding } });

describe('compressed copies of shared bodies', () => {
  it('compresses a shared body once per encoding and sends the kept copy afterwards', async () => {
    const calls = await serve();
    const first = await get('/shared', 'gzip, deflate, br');
    const second = await get('/shared', 'br');
    expect(first.headers['content-encoding']).toBe('br');
    expect(first.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(first.headers['content-length'])).toBe(first.rawPayload.length);
    expect(brotliDecompressSync(first.rawPayload).equals(body)).toBe(true);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(calls.br).toBe(1);
    const gzip = await get('/shared', 'gzip');
    await get('/shared', 'x-gzip');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).equals(body)).toBe(true);
    expect(calls).toEqual({ br: 1, gzip: 1, deflate: 0 });
  });

  it('leaves plain requests, small bodies and bodies sent once to the compression plugin', async () => {
    const calls = await serve();
    for (const response of [await get('/shared'), await get('/shared', 'identity'), await get('/small', 'br'), await get('/fresh', 'br')]) {
      expect(response.headers['content-encoding']).toBeUndefined();
    }
    expect((await get('/shared')).rawPayload.equals(body)).toBe(true);
    expect(calls).toEqual({ br: 0, gzip: 0, deflate: 0 });
  });
});
