/**
 * A container agent that keeps every turn it is sent (the whole body, with its
 * `delegation` credentials), answers each with one text event and holds it open until
 * the test releases it. A test plays the agent's part with the credentials while the
 * run is open, and waits on the turns' arrival, never on time.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Turn } from '../../src/core/runtimes/types.js';
import type { DelegationAccess } from '../../src/core/schemas/index.js';
import { notifier } from './notifier.js';

/** A turn as the container received it. */
export type ReceivedTurn = Turn & { delegation?: DelegationAccess };

/** The running container. */
export interface HoldingContainer {
  url: string;
  turns: ReceivedTurn[];
  /** Resolves with the n-th turn (1-based) once it arrived. */
  turn(n: number): Promise<ReceivedTurn>;
  /** Completes the n-th turn. */
  release(n: number): void;
  /** Closes every connection (held turns break) and stops listening. */
  close(): Promise<void>;
}

/** Starts the container on a free loopback port. */
export async function startHoldingContainer(): Promise<HoldingContainer> {
  const turns: ReceivedTurn[] = [];
  const releases: (() => void)[] = [];
  const changes = notifier();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'text', content: 'holding' })}\n\n`);
      releases.push(() => res.end(`data: ${JSON.stringify({ type: 'complete', content: { summary: 'released', artifacts: [] } })}\n\n`));
      turns.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReceivedTurn);
      changes.notify();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    turns,
    async turn(n) {
      await changes.until(() => turns.length >= n, `turn ${n} to reach the container`);
      return turns[n - 1]!;
    },
    release: (n) => releases[n - 1]?.(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
