/**
 * `--metrics-port`: `GET /metrics` on a port of its own (for a scraper on an internal
 * network while the API port faces users). Anything else there is 404.
 */
import { createServer, type Server } from 'node:http';
import type { OrgMetrics } from './index.js';

/** A running metrics listener. */
export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/** Listens on `host:port` (0: any free port) and serves the metrics. */
export async function startMetricsListener(metrics: OrgMetrics, options: { host: string; port: number; onError?: (error: unknown) => void }): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: metrics are at GET /metrics\n');
      return;
    }
    metrics.render().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        options.onError?.(error);
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
