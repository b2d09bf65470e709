/**
 * The one SSE helper: streams a run's events as `id: <n>` / `data: <json>` frames,
 * sends a `: keepalive` comment every 15 s, ends after the terminal event, and lets a
 * revoked MCP key close the stream with an `error` event.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app.js';
import type { Run } from '../core/chat/index.js';
import { isTerminal, type ChatEvent, type NumberedEvent } from '../core/chat/index.js';

/** Options of a stream. */
export interface StreamOptions {
  /** Replay events after this sequence number (from `Last-Event-ID`). */
  after?: number;
  /** Keepalive interval in ms (default 15 s). */
  keepaliveMs?: number;
}

/** Formats one SSE frame for an event. */
export function sseFrame(numbered: NumberedEvent): string {
  return `id: ${numbered.seq}\ndata: ${JSON.stringify(numbered.event)}\n\n`;
}

/** Response headers of every chat stream. */
export function sseHeaders(runId: string): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
    'x-org-run-id': runId,
  };
}

/**
 * Streams `run` to the client until its terminal event (replaying from `after`), or
 * until the client goes away — which never stops the run. Resolves when the response ends.
 */
export function streamRun(app: App, request: FastifyRequest, reply: FastifyReply, run: Run, options: StreamOptions = {}): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, sseHeaders(run.id));
  raw.flushHeaders();
  return new Promise<void>((resolve) => {
    let ended = false;
    const keepalive = setInterval(() => raw.write(': keepalive\n\n'), options.keepaliveMs ?? app.config.keepaliveMs);
    const finish = () => {
      if (ended) return;
      ended = true;
      clearInterval(keepalive);
      unsubscribe();
      unregister();
      if (!raw.writableEnded) raw.end();
      resolve();
    };
    const principal = request.principal;
    const unregister =
      principal?.kind === 'mcp'
        ? app.connections.register(principal.key.id, (reason) => {
            const event: ChatEvent = { type: 'error', content: { message: reason }, timestamp: new Date().toISOString() };
            raw.write(`data: ${JSON.stringify(event)}\n\n`);
            finish();
          })
        : () => undefined;
    let unsubscribe: () => void = () => undefined;
    raw.on('close', finish);
    // Events that arrive in one burst leave in one socket write: cork on the first frame
    // and uncork once the burst is over (setImmediate runs after pending I/O callbacks).
    let corked = false;
    const uncork = () => {
      corked = false;
      raw.uncork();
    };
    unsubscribe = run.subscribe(options.after ?? 0, (numbered) => {
      if (ended) return;
      if (!corked) {
        corked = true;
        raw.cork();
        setImmediate(uncork);
      }
      raw.write(sseFrame(numbered));
      if (isTerminal(numbered.event)) finish();
    });
    if (run.finished && !ended) finish();
  });
}

/** Streams already-finished events (a run of an earlier process) and ends. */
export function streamEvents(reply: FastifyReply, runId: string, events: ChatEvent[], after: number): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, sseHeaders(runId));
  events.forEach((event, index) => {
    if (index + 1 > after) raw.write(sseFrame({ seq: index + 1, event }));
  });
  raw.end();
}
