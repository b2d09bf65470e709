/**
 * streamSse reads the answer chunk by chunk as it arrives: a promise returned by
 * `afterChunk` holds the next chunk back until it settles, a rejected one ends the
 * exchange with its error, and a stream cut mid-way is reported as lost.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { streamSse, type SseHandlers, type SseOutcome } from '../src/core/runtimes/sse.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

async function serve(handler: RequestListener): Promise<URL> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/turn`);
}

function exchange(url: URL, handlers: SseHandlers, signal = new AbortController().signal): Promise<SseOutcome> {
  return streamSse({ url, headers: { 'content-type': 'application/json' }, body: '{}', signal, connectTimeoutMs: 5000, idleTimeoutMs: 5000 }, handlers);
}

/** A server that sends one frame per write, the next only once the test says so. */
async function steppedServer(frames: (string | Buffer)[], end = true): Promise<{ url: URL; next: () => void }> {
  let release: () => void = () => undefined;
  const url = await serve((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let index = 0;
    release = () => {
      if (index < frames.length) res.write(frames[index++]);
      else if (end) res.end();
      else res.socket?.destroy();
    };
    release();
  });
  return { url, next: () => release() };
}

describe('streamSse', () => {
  it('holds the next chunk back while the promise afterChunk returned is pending, then reads on', async () => {
    // The server sends "one", then, once reading is held, "two" and "three" and its end.
    let sent!: () => void;
    const allSent = new Promise<void>((resolve) => (sent = resolve));
    let sendRest: () => void = () => undefined;
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      sendRest = () => {
        res.write('data: two\n\n');
        res.end('data: three\n\n', () => sent());
      };
    });
    const seen: string[] = [];
    let held = false;
    let seenWhenReleased: string[] = [];
    const outcome = exchange(url, {
      onMessage(message) {
        seen.push(message.data);
      },
      afterChunk() {
        if (held) return undefined;
        held = true;
        sendRest();
        // Released once the server handed everything to the network: none of it may have been read.
        return allSent.then(() => {
          seenWhenReleased = [...seen];
        });
      },
    });
    expect(await outcome).toEqual({ kind: 'ended' });
    expect(seenWhenReleased).toEqual(['one']);
    expect(seen).toEqual(['one', 'two', 'three']);
  });

  it('ends with the error of a rejected afterChunk promise, reading nothing more', async () => {
    const { url, next } = await steppedServer(['data: one\n\n', 'data: two\n\n']);
    const seen: string[] = [];
    const outcome = exchange(url, {
      onMessage(message) {
        seen.push(message.data);
      },
      afterChunk() {
        next();
        return Promise.reject(new Error('the history refused the batch'));
      },
    });
    await expect(outcome).rejects.toThrow('the history refused the batch');
    expect(seen).toEqual(['one']);
  });

  it('ends with the error a handler throws', async () => {
    const { url } = await steppedServer(['data: one\n\n']);
    const outcome = exchange(url, {
      onMessage() {
        throw new Error('handler failed');
      },
    });
    await expect(outcome).rejects.toThrow('handler failed');
  });

  it('reports a connection cut mid-stream as lost, after the frames before the cut', async () => {
    const { url, next } = await steppedServer(['data: one\n\n', 'data: two\n\n'], false);
    const seen: string[] = [];
    const outcome = await exchange(url, {
      onMessage(message) {
        seen.push(message.data);
      },
      afterChunk() {
        next();
        return undefined;
      },
    });
    expect(outcome.kind).toBe('lost');
    expect(seen).toEqual(['one', 'two']);
  });

  it('a caller abort while reading is held ends the exchange as aborted', async () => {
    const { url, next } = await steppedServer(['data: one\n\n', 'data: two\n\n']);
    const controller = new AbortController();
    const seen: string[] = [];
    const outcome = await exchange(
      url,
      {
        onMessage(message) {
          seen.push(message.data);
        },
        afterChunk() {
          next();
          controller.abort();
          return Promise.resolve();
        },
      },
      controller.signal,
    );
    expect(outcome).toEqual({ kind: 'aborted' });
    expect(seen).toEqual(['one']);
  });

  it('reads a character split between two chunks whole, and hands over nothing after a message asked to stop, the rest of its chunk included', async () => {
    const first = Buffer.from('data: é\n\n');
    const cut = first.indexOf(0xc3) + 1;
    const { url, next } = await steppedServer([first.subarray(0, cut), Buffer.concat([first.subarray(cut), Buffer.from('data: stop\n\ndata: after\n\n')]), Buffer.from('data: later\n\n')]);
    const seen: string[] = [];
    const outcome = await exchange(url, {
      onMessage(message) {
        seen.push(message.data);
        return message.data === 'stop';
      },
      afterChunk() {
        next();
        return undefined;
      },
    });
    expect(outcome).toEqual({ kind: 'stopped' });
    expect(seen).toEqual(['é', 'stop']);
  });

  it('ends an exchange whose one event grows past maxEventChars as too-large, and closes the request, after the events before it', async () => {
    let closed!: () => void;
    const requestClosed = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req, res) => {
      req.resume();
      res.on('close', () => closed());
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: small\n\n');
      // One data line that never ends: only the limit can end the exchange (the idle clock is far away).
      res.write(`data: ${'x'.repeat(5000)}`);
    });
    const seen: string[] = [];
    const outcome = await streamSse(
      { url, headers: {}, body: '{}', signal: new AbortController().signal, connectTimeoutMs: 5000, idleTimeoutMs: 3_600_000, maxEventChars: 4096 },
      { onMessage: (message) => void seen.push(message.data) },
    );
    expect(outcome).toEqual({ kind: 'too-large', limit: 4096 });
    expect(seen).toEqual(['small']);
    await requestClosed;
  });
});
