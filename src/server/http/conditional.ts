/**
 * Conditional GET (RFC 9110 §13): every successful GET or HEAD answer whose body is in
 * memory gets an `ETag` (a weak validator over the body, by the `etag` package, unless
 * the route set a strong one of its own, as skills do), and a request whose
 * `If-None-Match` still matches (judged by `fresh`) gets 304 with no body. Runs before
 * compression, so the tag names the representation, not its encoding. A body the core
 * caches as one Buffer (the structure detail) is hashed once, not on every request: its
 * tag is kept beside it for as long as the Buffer lives.
 */
import etag from 'etag';
import type { FastifyInstance } from 'fastify';
import fresh from 'fresh';

/** Tags of cached bodies, by the Buffer's identity (a cached body is never modified). */
const tags = new WeakMap<Buffer, string>();

/** The weak ETag of a body; a Buffer's is computed once and then reused. */
function weakTagOf(payload: string | Buffer): string {
  if (typeof payload === 'string') return etag(payload, { weak: true });
  let tag = tags.get(payload);
  if (tag === undefined) {
    tag = etag(payload, { weak: true });
    tags.set(payload, tag);
  }
  return tag;
}

/** Adds the ETag / 304 hook (register before compression: hooks run in order). */
export function registerConditionalGet(server: FastifyInstance): void {
  // A callback hook: it runs on every answer and waits on nothing.
  server.addHook('onSend', (request, reply, payload, done) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return done(null, payload);
    if (reply.statusCode !== 200) return done(null, payload);
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
    let tag = reply.getHeader('etag');
    if (tag === undefined) {
      tag = weakTagOf(payload);
      reply.header('etag', tag);
    }
    if (request.headers['if-none-match'] === undefined) return done(null, payload);
    if (!fresh(request.headers, { etag: String(tag) })) return done(null, payload);
    reply.code(304);
    reply.removeHeader('content-length');
    reply.removeHeader('content-type');
    done(null, '');
  });
}
