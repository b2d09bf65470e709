/**
 * A real local HTTP receiver of webhook deliveries for tests: it records every request,
 * answers each with the next planned status (200 once the plan is used up), and lets a
 * test wait on what it received. Signatures are checked with the Standard Webhooks
 * reference library, as a receiver in the wild would.
 */
import { createServer, type Server } from 'node:http';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { notifier } from './notifier.js';

/** One request the receiver got. */
export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
  /** What the receiver answered (`hold`: nothing). */
  answered: number | 'hold';
}

/** A listening receiver. */
export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Statuses to answer, in order (`hold`: never answer, the request stays open); 200 once empty. */
  plan: (number | 'hold')[];
  until(predicate: () => boolean, what: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startReceiver(): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const plan: (number | 'hold')[] = [];
  const changes = notifier();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = plan.shift() ?? 200;
      received.push({ headers: request.headers, body, json: JSON.parse(body) as Received['json'], answered: status });
      if (status !== 'hold') response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      changes.notify();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    plan,
    until: (predicate, what) => changes.until(predicate, what),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verifies a delivery as a receiver would, with the reference library (throws when the signature is wrong). */
export function verifyDelivery(secret: string, delivery: Received): unknown {
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
  return new StandardWebhook(secret).verify(delivery.body, headers);
}
