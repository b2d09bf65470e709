/**
 * A request that reaches the server while it closes (here a second request on a
 * keep-alive connection whose first request still runs) is answered 503 as problem+json with
 * `connection: close`, not Fastify's plain-JSON closing answer.
 */
import { connect } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerClosing, registerErrorHandling } from '../src/server/errors.js';

describe('requests during shutdown', () => {
  it('get a 503 problem', async () => {
    const server = Fastify({ return503OnClosing: false });
    registerErrorHandling(server);
    registerClosing(server);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    server.get('/slow', async () => {
      started();
      await released;
      return { ok: true };
    });
    server.get('/other', async () => ({ ok: true }));
    let closing!: () => void;
    const closingSeen = new Promise<void>((resolve) => (closing = resolve));
    // Runs after registerClosing's own preClose hook.
    server.addHook('preClose', async () => closing());
    await server.listen({ port: 0, host: '127.0.0.1' });
    const address = server.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    const socket = connect(address.port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /slow HTTP/1.1\r\nhost: x\r\n\r\n');
    await inFlight;
    const closed = server.close();
    await closingSeen;
    const arrived = new Promise<void>((resolve) => server.server.once('request', () => resolve()));
    socket.write('GET /other HTTP/1.1\r\nhost: x\r\n\r\n');
    await arrived;
    release();
    await ended;
    await closed;
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(responses[1]).toContain('application/problem+json');
    expect(responses[1]).toContain('shutting down');
  });
});
