/**
 * Cross-origin access for browser apps on other origins (`--cors-origin`,
 * `ORG_CORS_ORIGINS`), by `@fastify/cors`. Without a listed origin nothing is
 * registered: no CORS header is ever sent and preflights stay 404, so a browser on
 * another origin is refused as before.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** Request headers a browser client of the API sends beyond the CORS-safelisted ones. */
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Last-Event-ID',
  'If-Match',
  'If-None-Match',
  'X-Request-Id',
  'traceparent',
  'tracestate',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
];

/** Response headers a browser script may read (beyond the CORS-safelisted ones). */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'WWW-Authenticate',
  'X-Org-Run-Id',
  'X-Request-Id',
  'Content-Disposition',
  'Mcp-Session-Id',
];

/** Methods of the API. */
const METHODS = ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'];

/** Registers CORS for `origins` (exact origins, or `*` for any); does nothing for none. */
export async function registerCors(server: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await server.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    // Tokens travel in Authorization, never in cookies: no credentialed requests.
    credentials: false,
    // Browsers cache a preflight for this long (Chromium caps it at 2 hours).
    maxAge: 7200,
  });
}
