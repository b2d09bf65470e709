/**
 * Compressed copies of shared bodies. A body the core caches as one Buffer and sends
 * again unchanged (the structure detail, per structure version) is compressed once per
 * encoding, with the same settings as every other answer, and the compressed bytes are
 * kept beside the Buffer for as long as it lives: a browser asking again gets them
 * without another round of brotli. Every other body is left to the compression plugin,
 * which runs after this hook and skips an answer that already has a `Content-Encoding`.
 */
import { Negotiator } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply } from 'fastify';
import vary from 'vary';
import { brotliCompress, deflate, gzip, type InputType } from 'node:zlib';
import { BROTLI_OPTIONS, COMPRESS_THRESHOLD, ENCODINGS, type Encoding } from './compression.js';

/** Bodies sent more than once, unchanged (marked by the route that sends them). */
const shared = new WeakSet<Buffer>();
/** Compressed copies of shared bodies, by encoding. */
const copies = new WeakMap<Buffer, Partial<Record<Encoding, Buffer>>>();

/** Marks `body` as sent again unchanged: it is compressed once per encoding, then reused. Never modify it afterwards. */
export function shareBody(body: Buffer): Buffer {
  shared.add(body);
  return body;
}

/** A one-shot compressor with zlib's callback signature. */
export type Compress = (input: InputType, callback: (error: Error | null, result: Buffer) => void) => void;
export const COMPRESSORS: Record<Encoding, Compress> = {
  br: (input, callback) => brotliCompress(input, BROTLI_OPTIONS, callback),
  gzip: (input, callback) => gzip(input, callback),
  deflate: (input, callback) => deflate(input, callback),
};

const negotiator = new Negotiator({ supportedValues: [...ENCODINGS], cache: new Map() });

/** The encoding to send, from `Accept-Encoding` (`x-gzip` and `*` read as gzip, as the plugin does). */
function encodingOf(header: string | undefined): Encoding | undefined {
  if (header === undefined) return undefined;
  const chosen = negotiator.negotiate(header.toLowerCase().replace(/x-gzip|\*/g, 'gzip')) as Encoding | null;
  return chosen ?? undefined;
}

function sendCopy(reply: FastifyReply, encoding: Encoding, copy: Buffer): Buffer {
  reply.header('vary', vary.append(String(reply.getHeader('vary') ?? ''), 'Accept-Encoding'));
  reply.header('content-encoding', encoding);
  reply.header('content-length', copy.length);
  return copy;
}

/** Options of {@link registerCompressedBodies}. */
export interface CompressedBodiesOptions {
  /** The compressors by encoding; default: zlib's, with the server's settings. */
  compressors?: Record<Encoding, Compress>;
}

/** Adds the hook; register it after the ETag hook and before the compression plugin. */
export function registerCompressedBodies(server: FastifyInstance, options: CompressedBodiesOptions = {}): void {
  const compressors = options.compressors ?? COMPRESSORS;
  server.addHook('onSend', (request, reply, payload, done) => {
    if (!Buffer.isBuffer(payload) || !shared.has(payload) || payload.length < COMPRESS_THRESHOLD) return done(null, payload);
    if (reply.statusCode !== 200 || reply.hasHeader('content-encoding') || request.headers['x-no-compression'] !== undefined) return done(null, payload);
    const encoding = encodingOf(request.headers['accept-encoding']);
    if (encoding === undefined) return done(null, payload);
    const kept = copies.get(payload)?.[encoding];
    if (kept) return done(null, sendCopy(reply, encoding, kept));
    compressors[encoding](payload, (error, copy) => {
      // A failed compression leaves the body to the plugin, as any other answer.
      if (error) return done(null, payload);
      copies.set(payload, { ...copies.get(payload), [encoding]: copy });
      done(null, sendCopy(reply, encoding, copy));
    });
  });
}
