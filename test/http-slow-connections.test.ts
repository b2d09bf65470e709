/**
 * Slow and idle connections (issue 28, finding 6), on a real listening server with small
 * limits: a client at another address opens more connections than its share — silent
 * ones, ones dripping their headers, ones dripping a body with no token and with a real
 * token — and the server closes those past the share at once, still answers health and a
 * real request to everybody else while the rest are held, and closes every slow one once
 * its time is up. A chat stream that stays open longer than the request timeout is not
 * cut by it. Every wait is on an event (a connection's close, a stream's frame).
 */
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConnectionLimits } from '../src/core/config-connections.js';
import { createGatedRuntime, type GatedRuntime } from './helpers/gated-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { open } from './helpers/sse.js';

/** The attacker's own address (every 127/8 address is the loopback interface). */
const ATTACKER = '127.0.0.2';
const PER_ADDRESS = 6;
const OPENED = 16;

/** A raw connection and what it received until the server closed it. */
interface Slow {
  socket: Socket;
  received: string;
  closed: Promise<void>;
}

describe('slow and idle connections are timed out and capped', () => {
  let t: TestInstance;
  let gated: GatedRuntime;
  let owner: { token: string; id: string };
  let structureId: string;
  const drips: NodeJS.Timeout[] = [];

  beforeAll(async () => {
    gated = createGatedRuntime();
    const connections = { ...resolveConnectionLimits({ headersTimeout: 0.3, requestTimeout: 0.6, maxConnections: 60, maxConnectionsPerAddress: PER_ADDRESS }, {}) };
    t = await startInstance({ listen: true, config: { connections }, deps: { runtime: () => gated.runtime } });
    owner = await t.createUser('slow-owner@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Slow')).id;
  });
  afterAll(async () => {
    for (const drip of drips) clearInterval(drip);
    gated.release();
    await t.close();
  });

  /** Opens a raw connection from the attacker's address; resolves once connected (or closed at once). */
  const raw = (): Promise<Slow> =>
    new Promise((resolve) => {
      const { port } = new URL(t.url);
      const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: ATTACKER });
      const slow: Slow = { socket, received: '', closed: new Promise((done) => socket.once('close', () => done())) };
      socket.on('data', (chunk: Buffer) => (slow.received += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.once('connect', () => resolve(slow));
      socket.once('close', () => resolve(slow));
    });
  /** Writes a byte now and then, as a dripping client does. */
  const drip = (slow: Slow, text: string) => {
    slow.socket.write(text);
    drips.push(setInterval(() => slow.socket.writable && slow.socket.write(' '), 50));
  };

  it('closes the connections past an address’s share at once, serves everybody else meanwhile, and closes every slow one when its time is up', async () => {
    // A chat stream of a turn that outlives the request timeout, opened first.
    const stream = await open(`${t.url}/api/org/chat/message`, { token: owner.token, body: { structure_id: structureId, role_id: 'exec-ceo', message: 'gated long turn' } });
    expect(stream.status).toBe(200);
    await gated.waiting(1);

    const slows = await Promise.all(Array.from({ length: OPENED }, () => raw()));
    const body = JSON.stringify({ structure_id: structureId, role_id: 'exec-ceo', message: 'never finished' });
    slows.forEach((slow, index) => {
      switch (index % 4) {
        case 0: // silent: connected, never a byte
          break;
        case 1: // headers dripping
          drip(slow, 'GET /api/org/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
          break;
        case 2: // a body dripping, no token
          drip(slow, `POST /api/org/structures HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"`);
          break;
        default: // a body dripping, with a real token
          drip(slow, `POST /api/org/chat/message HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${owner.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length + 100000}\r\n\r\n${body.slice(0, 20)}`);
      }
    });

    // Held meanwhile: everybody else is served, health and a real request alike.
    const health = await request(`${t.url}/api/org/health`);
    expect(health.statusCode).toBe(200);
    await health.body.text();
    const real = await request(`${t.url}/api/org/structures/${structureId}`, { headers: { authorization: `Bearer ${owner.token}` } });
    expect(real.statusCode).toBe(200);
    await real.body.text();

    // Every slow connection is closed: those past the share at once, the rest at their timeout.
    await Promise.all(slows.map((slow) => slow.closed));
    expect(t.server.connectionStats.refusedPerAddress).toBeGreaterThanOrEqual(OPENED - PER_ADDRESS);
    // The ones that were read from got a problem (408 for a request not received in time, or 401 for no token).
    for (const slow of slows.filter((candidate) => candidate.received !== '')) {
      expect(slow.received).toMatch(/^HTTP\/1\.1 (408|401) /);
      expect(slow.received).toContain('application/problem+json');
    }
    expect(slows.some((slow) => slow.received.startsWith('HTTP/1.1 408 '))).toBe(true);

    // The stream opened before them is still open past the request timeout, and ends with its turn.
    expect(stream.done).toBe(false);
    gated.release();
    await stream.ended;
    expect(stream.frames().at(-1)?.event?.type).toBe('complete');
  });

  it('timed-out connections are released even when their client never closes its side', async () => {
    // Another address, with a full share of connections that stop halfway through their headers and
    // never close (half-open: the client keeps its side open after the server's answer).
    const { port } = new URL(t.url);
    const address = '127.0.0.3';
    const halfOpen = await Promise.all(
      Array.from({ length: PER_ADDRESS }, () => {
        const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: address, allowHalfOpen: true });
        let received = '';
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.once('connect', () => socket.write('GET /api/org/health HTTP/1.1\r\nHost: x\r\nX-Slow: '));
        return new Promise<string>((resolve) => socket.once('end', () => resolve(received)));
      }),
    );
    for (const received of halfOpen) expect(received).toMatch(/^HTTP\/1\.1 408 /);
    // The server let go of all of them: the same address is served again, its share free.
    const answer = await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: address });
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.once('close', () => resolve(received));
      socket.once('connect', () => socket.end('GET /api/org/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
