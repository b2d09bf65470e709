/**
 * The one SSE helper: streams a run's events as `id: <n>` / `data: <json>` frames (the
 * JSON text each event was serialised to once), sends a `: keepalive` comment at an
 * interval, ends after the terminal event, and ends early with an `error` event when the
 * caller's credentials are revoked, or with a final `retry:` field when the instance
 * drains (the client reconnects, to another instance, and resumes with `Last-Event-ID`).
 */
import type { FastifyReply } from 'fastify';
import type { Run } from '../core/chat/index.js';

export interface StreamOptions {
  /** Replay events after this sequence number (from `Last-Event-ID`). */
  after?: number;
  /** Keepalive comment interval in ms. */
  keepaliveMs: number;
  /**
   * Registers a callback that ends the stream with an `error` event carrying the reason
   * (a revoked MCP key); returns the function that unregisters it.
   */
  watchRevocation?: (end: (reason: string) => void) => () => void;
  /**
   * Registers the stream with the drain of a shutdown, which may end it with a final
   * `retry:` field of `retryMs`; returns the function that unregisters it.
   */
  watchDrain?: (end: (retryMs: number) => void) => () => void;
}

/**
 * Response headers of every chat stream, after the headers hooks already set on the
 * reply (CORS, request id), which a taken-over response would otherwise lose.
 */
export function sseHeaders(reply: FastifyReply, runId: string): Record<string, string | string[] | number> {
  const set: Record<string, string | string[] | number> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) set[name] = value;
  return {
    ...set,
    'content-type': 'text/event-stream; charset=utf-8',
    // A chat stream is somebody's own: no cache keeps it.
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
    'x-org-run-id': runId,
  };
}

/**
 * Streams `run` to the client until its terminal event (replaying from `after`), or
 * until the client goes away, which never stops the run. Resolves when the response ends.
 */
export function streamRun(reply: FastifyReply, run: Run, options: StreamOptions): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, sseHeaders(reply, run.id));
  raw.flushHeaders();
  const streams = reply.server.sseStreams;
  streams.open += 1;
  return new Promise<void>((resolve) => {
    let ended = false;
    let unsubscribe: () => void = () => undefined;
    let unwatch: () => void = () => undefined;
    let undrain: () => void = () => undefined;
    const keepalive = setInterval(() => raw.write(': keepalive\n\n'), options.keepaliveMs);
    const finish = () => {
      if (ended) return;
      ended = true;
      streams.open -= 1;
      clearInterval(keepalive);
      unsubscribe();
      unwatch();
      undrain();
      if (!raw.writableEnded) raw.end();
      resolve();
    };
    raw.on('close', finish);
    if (options.watchRevocation) {
      unwatch = options.watchRevocation((reason) => {
        if (ended) return;
        raw.write(`data: ${JSON.stringify({ type: 'error', content: { message: reason }, timestamp: new Date().toISOString() })}\n\n`);
        finish();
      });
    }
    if (options.watchDrain) {
      undrain = options.watchDrain((retryMs) => {
        if (ended) return;
        // No event follows: the client waits retryMs, reconnects and resumes after the last id it received.
        raw.write(`retry: ${Math.max(0, Math.round(retryMs))}\n\n`);
        finish();
      });
    }
    // The batches of one commit leave in one socket write (corked), each its own Buffer.
    unsubscribe = run.follow(options.after ?? 0, (batches) => {
      if (ended) return;
      if (batches.length === 1) raw.write(batches[0]!.frames);
      else {
        raw.cork();
        for (const batch of batches) raw.write(batch.frames);
        raw.uncork();
      }
      if (batches.at(-1)!.terminal) finish();
    });
    if (run.finished && !ended) finish();
  });
}

/**
 * Streams the stored frames of a finished run (of this or an earlier process) and ends,
 * a part at a time as the client takes them: a long run is never held whole. Answers 204
 * when there is nothing after `Last-Event-ID` (an EventSource then stops reconnecting).
 * A client that goes away stops the reading.
 */
export async function streamStored(reply: FastifyReply, runId: string, frames: AsyncIterable<Buffer>): Promise<void> {
  const parts = frames[Symbol.asyncIterator]();
  const first = await parts.next();
  if (first.done) {
    await reply.code(204).send(null);
    return;
  }
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, sseHeaders(reply, runId));
  try {
    let part: IteratorResult<Buffer> = first;
    while (!part.done && !raw.destroyed) {
      if (!raw.write(part.value)) await drained(raw);
      part = await parts.next();
    }
  } finally {
    await parts.return?.();
    if (!raw.writableEnded) raw.end();
  }
}

/** Resolves when `raw` can take more, or is gone. */
function drained(raw: FastifyReply['raw']): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}
