/**
 * Headers of every API answer (`/api/org/…` and `/mcp`), errors and streams included:
 * `Cache-Control: no-store`, since nearly every answer is somebody's own (a token on user
 * creation, invite acceptance, key minting and token rotation; histories, artifacts and
 * skills of a structure) and no shared or browser cache may keep one; and
 * `X-Content-Type-Options: nosniff`, so a browser never takes an answer for another type
 * than the one it is labelled with (an artifact labelled text must not run as script).
 *
 * Set on the raw response when the request arrives, so that answers written past Fastify
 * (the SSE helper, the MCP transport) carry them too; a route that sets its own
 * `Cache-Control` replaces this one (Node gives headers passed to `writeHead` precedence).
 */
import type { FastifyInstance } from 'fastify';

/** True for the paths of the API and of the MCP endpoint (not the web UI's files). */
export function isApiPath(url: string): boolean {
  return url.startsWith('/api/org') || url === '/mcp' || url.startsWith('/mcp?') || url.startsWith('/mcp/');
}

/** Registers the headers (first among the onRequest hooks, so refusals carry them too). */
export function registerApiHeaders(server: FastifyInstance): void {
  server.addHook('onRequest', (request, reply, done) => {
    if (isApiPath(request.url)) {
      reply.raw.setHeader('cache-control', 'no-store');
      reply.raw.setHeader('x-content-type-options', 'nosniff');
    }
    done();
  });
}
