/**
 * Reading a `text/event-stream` body with eventsource-parser: the one SSE reading loop
 * of every client (CLI, MCP bridge, web). Works on any fetch `Response` body, in Node
 * and in browsers; a body silent for longer than the idle limit is given up on (the
 * server sends a keepalive comment every 15 s, so silence means a dead connection).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { OrgError } from '../core/errors.js';

/** One server-sent event: its `id:` (undefined when the frame had none) and its `data:`. */
export interface SseMessage {
  id: string | undefined;
  data: string;
}

/** Options of {@link readSse}. */
export interface ReadSseOptions {
  /** Gives up on a body silent for this long (ms); 0 waits forever. */
  idleTimeoutMs: number;
  /** Ends the reading (quietly, as if the body had ended). */
  signal?: AbortSignal;
}

/** Reads one chunk, failing with `timeout` when none comes within `ms`. */
async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>> {
  if (ms <= 0) return reader.read();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OrgError('timeout', `the stream was silent for ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The messages of an SSE body, in order. Comments (`: keepalive`) only reset the idle
 * timer. Ends when the body ends; throws when the connection breaks or goes silent. The
 * body is released however the iteration ends.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, options: ReadSseOptions): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const queue: SseMessage[] = [];
  const parser = createParser({ onEvent: (message: EventSourceMessage) => queue.push({ id: message.id, data: message.data }) });
  const stop = () => void reader.cancel().catch(() => undefined);
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await readChunk(reader, options.idleTimeoutMs);
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
    parser.feed(decoder.decode());
    while (queue.length > 0) yield queue.shift()!;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    reader.cancel().catch(() => undefined);
  }
}
