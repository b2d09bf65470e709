/**
 * A container agent the test holds in its hand (docs/runtime-protocol.md): every turn
 * sends a `text` event at once, then waits until the test releases it (or the caller
 * drops the request, as a cancelled turn does), then completes. The test sees which
 * turns started, in which order, and which were aborted — the events to wait on, so
 * nothing waits on time.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One turn the agent received. */
export interface GateTurn {
  message: string;
  /** Resolves when the caller dropped the request before it was released. */
  aborted: Promise<void>;
  /** Completes the turn. */
  release(): void;
}

/** The running agent. */
export interface GateAgent {
  url: string;
  /** Messages of the turns received, in order. */
  readonly started: string[];
  /** Resolves with the turn of `message` once it has started. */
  turn(message: string): Promise<GateTurn>;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

/** Starts the agent on a free loopback port. */
export async function startGateAgent(): Promise<GateAgent> {
  const turns = new Map<string, GateTurn>();
  const waiting = new Map<string, (turn: GateTurn) => void>();
  const started: string[] = [];
  const server: Server = createServer((request, response) => {
    bodyOf(request).then(
      (text) => {
        const { message } = JSON.parse(text) as { message: string };
        started.push(message);
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (event: unknown) => response.write(`data: ${JSON.stringify(event)}\n\n`);
        send({ type: 'text', content: `working on ${message}` });
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        const aborted = new Promise<void>((resolve) => response.once('close', () => !response.writableEnded && resolve()));
        const turn: GateTurn = { message, aborted, release };
        turns.set(message, turn);
        waiting.get(message)?.(turn);
        if (message.startsWith('quick')) release();
        void released.then(() => {
          if (response.writableEnded || response.destroyed) return;
          send({ type: 'complete', content: { summary: `did ${message}`, artifacts: [] } });
          response.end();
        });
      },
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    started,
    turn: (message) => {
      const known = turns.get(message);
      if (known) return Promise.resolve(known);
      return new Promise((resolve) => waiting.set(message, resolve));
    },
    async close() {
      for (const turn of turns.values()) turn.release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
