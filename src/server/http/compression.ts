/**
 * Response compression by `Accept-Encoding` (br, gzip, deflate), by `@fastify/compress`:
 * JSON, problem documents, the OpenAPI document and the web UI's files. Chat streams are
 * written straight to the socket (the SSE helper takes the response over), so no frame
 * ever waits in a compressor's buffer (a test holds a live stream's first frame to that).
 */
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import { constants } from 'node:zlib';

/** Bodies smaller than this are sent as they are (headers would outweigh the saving). */
export const COMPRESS_THRESHOLD = 1024;

/** zstd needs Node 22.15; the order is the server's preference among what a client accepts. */
export const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
/** A content coding the server sends. */
export type Encoding = (typeof ENCODINGS)[number];
/**
 * Brotli's default quality (11) costs tens of milliseconds on a 100 KiB document; 5
 * keeps most of the gain for dynamic responses.
 */
export const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } };

/** Registers the global compression hook; must come before any route or static plugin. */
export async function registerCompression(server: FastifyInstance): Promise<void> {
  await server.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD,
    encodings: [...ENCODINGS],
    brotliOptions: BROTLI_OPTIONS,
    // Requests are JSON or raw e-mail, never compressed: no request decompression.
    globalDecompression: false,
  });
}
