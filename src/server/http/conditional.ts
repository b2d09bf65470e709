/**
 * Conditional GET (RFC 9110 §13): every successful GET or HEAD answer whose body is in
 * memory gets an `ETag` (a weak validator over the body, by the `etag` package, unless
 * the route set a strong one of its own, as skills do), and a request whose
 * `If-None-Match` still matches (judged by `fresh`) gets 304 with no body. Runs before
 * compression, so the tag names the representation, not its encoding.
 */
import etag from 'etag';
import type { FastifyInstance } from 'fastify';
import fresh from 'fresh';

/** Adds the ETag / 304 hook (register before compression: hooks run in order). */
export function registerConditionalGet(server: FastifyInstance): void {
  server.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    if (reply.statusCode !== 200) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    let tag = reply.getHeader('etag');
    if (tag === undefined) {
      tag = etag(payload, { weak: true });
      reply.header('etag', tag);
    }
    if (request.headers['if-none-match'] === undefined) return payload;
    if (!fresh(request.headers, { etag: String(tag) })) return payload;
    reply.code(304);
    reply.removeHeader('content-length');
    reply.removeHeader('content-type');
    return '';
  });
}
