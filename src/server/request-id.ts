/**
 * Request ids: a request carrying a usable `X-Request-Id` (from a proxy or a client)
 * keeps it, any other gets a fresh UUID. The id is Fastify's `request.id`, so it is in
 * every log record of the request; it is sent back on every response (set on the raw
 * response, so streams and other hijacked answers carry it too) and names the problem
 * in every error body (`instance`).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** The header carrying a request's id, both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** Longest id accepted from a caller; longer ones are replaced. */
const MAX_REQUEST_ID = 200;
/** Visible ASCII without spaces, quotes or backslashes: safe in a header, a log line and a URI. */
const SAFE_ID = /^[A-Za-z0-9._~:@!$&'()*+,;=/-]+$/;

/** The caller's `X-Request-Id` when it is usable, otherwise a fresh UUID (Fastify's `genReqId`). */
export function requestIdOf(raw: IncomingMessage): string {
  const given = raw.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  if (value !== undefined && value.length > 0 && value.length <= MAX_REQUEST_ID && SAFE_ID.test(value)) return value;
  return randomUUID();
}

/** The problem `instance` of a request: a URI naming this occurrence by its request id. */
export function problemInstance(requestId: string): string {
  return `urn:org:request:${requestId}`;
}

/** Sends the request id back on every response, hijacked ones included. */
export function registerRequestIds(server: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request and waits on nothing.
  server.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    done();
  });
}
