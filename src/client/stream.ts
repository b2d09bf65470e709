/**
 * Chat streams: the server-sent events of a run, parsed with eventsource-parser and
 * iterated as `{seq, event}`. A connection that drops before the terminal event is
 * picked up again with `GET /chat/runs/{id}/events` and `Last-Event-ID`, so no event is
 * lost or repeated; the turn itself never stops because a connection did.
 */
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { isTerminal, type ChatEvent } from '../core/chat/types.js';
import { OrgError, isOrgError } from '../core/errors.js';
import { call, send, type Transport } from './http.js';

/** One event of a run with its sequence number (`id:` of the frame; undefined when the server sent none). */
export interface StreamedEvent {
  seq: number | undefined;
  event: ChatEvent;
}

/** What a chat stream tells about reconnections. */
export interface ReconnectInfo {
  runId: string;
  /** 1 for the first retry after a drop. */
  attempt: number;
  /** The last sequence number received (sent as Last-Event-ID). */
  lastEventId: number;
}

/** Options of a chat stream. */
export interface ChatStreamOptions {
  /** How many reconnections in a row without a new event before giving up (default 5). */
  maxReconnects?: number;
  /** Pause before the n-th retry is n times this, in ms (default 200). */
  retryDelayMs?: number;
  /** A connection silent for this long is taken for dropped (ms; default 45 s: the server sends keepalives every 15 s). */
  idleTimeoutMs?: number;
  /** Called before each reconnection. */
  onReconnect?: (info: ReconnectInfo) => void;
}

/** The events of one run, in order, ending with its terminal event. */
export interface ChatStream extends AsyncIterable<StreamedEvent> {
  /** The run id (`X-Org-Run-Id`). */
  readonly runId: string;
  /** The last sequence number received so far (0 before any). */
  readonly lastEventId: number;
  /** Asks the server to cancel the turn; the stream then ends with `error` "cancelled". */
  cancel(): Promise<void>;
  /** Drops the connection and ends the iteration (the turn goes on on the server). */
  close(): void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Cancels a run; a run that already ended (409) is not an error. */
export async function cancelRun(transport: Transport, runId: string): Promise<void> {
  try {
    await call(transport, `/api/org/chat/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });
  } catch (error) {
    if (isOrgError(error) && error.code === 'conflict') return;
    throw error;
  }
}

class RunStream implements ChatStream {
  #lastEventId: number;
  #closed = false;
  readonly #controller = new AbortController();
  #first: Dispatcher.ResponseData | undefined;

  constructor(
    private readonly transport: Transport,
    readonly runId: string,
    first: Dispatcher.ResponseData | undefined,
    after: number,
    private readonly options: ChatStreamOptions,
  ) {
    this.#first = first;
    this.#lastEventId = after;
  }

  get lastEventId(): number {
    return this.#lastEventId;
  }

  cancel(): Promise<void> {
    return cancelRun(this.transport, this.runId);
  }

  close(): void {
    this.#closed = true;
    this.#controller.abort();
    this.#first?.body.destroy();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamedEvent> {
    const maxReconnects = this.options.maxReconnects ?? 5;
    const retryDelayMs = this.options.retryDelayMs ?? 200;
    const idleTimeoutMs = this.options.idleTimeoutMs ?? 45_000;
    let response = this.#first;
    this.#first = undefined;
    let failures = 0;
    let failure: unknown;
    while (!this.#closed) {
      if (!response) {
        try {
          const headers: Record<string, string> = { accept: 'text/event-stream' };
          if (this.#lastEventId > 0) headers['last-event-id'] = String(this.#lastEventId);
          response = await send(this.transport, `/api/org/chat/runs/${encodeURIComponent(this.runId)}/events`, {
            headers,
            signal: this.#controller.signal,
            bodyTimeoutMs: idleTimeoutMs,
          });
        } catch (error) {
          if (this.#closed) return;
          // Only a lost server is worth retrying; a 401 or a 404 will not get better.
          if (isOrgError(error) && error.code !== 'unavailable' && error.code !== 'timeout') throw error;
          failure = error;
          if (++failures > maxReconnects) break;
          this.options.onReconnect?.({ runId: this.runId, attempt: failures, lastEventId: this.#lastEventId });
          await sleep(retryDelayMs * failures);
          continue;
        }
      }
      const queue: StreamedEvent[] = [];
      const parser = createParser({
        onEvent: (message) => {
          let event: ChatEvent;
          try {
            event = JSON.parse(message.data) as ChatEvent;
          } catch {
            return; // not an event of ours; the server never sends such a frame
          }
          const seq = message.id !== undefined && /^\d+$/.test(message.id) ? Number(message.id) : undefined;
          queue.push({ seq, event });
        },
      });
      const decoder = new TextDecoder();
      const body = response.body;
      response = undefined;
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          while (queue.length > 0) {
            const item = queue.shift()!;
            // A replay never repeats what was seen; guard anyway (ids only grow).
            if (item.seq !== undefined) {
              if (item.seq <= this.#lastEventId) continue;
              this.#lastEventId = item.seq;
            }
            failures = 0;
            yield item;
            if (isTerminal(item.event)) {
              body.destroy();
              return;
            }
          }
        }
      } catch (error) {
        failure = error;
      }
      if (this.#closed) return;
      if (++failures > maxReconnects) break;
      this.options.onReconnect?.({ runId: this.runId, attempt: failures, lastEventId: this.#lastEventId });
      await sleep(retryDelayMs * failures);
    }
    if (this.#closed) return;
    throw new OrgError('unavailable', `lost the stream of run ${this.runId} and could not resume it; follow it later with: org chat --run ${this.runId}`, {
      cause: failure,
      extra: { run_id: this.runId },
    });
  }
}

/** Sends a chat message and returns its live stream once the server has accepted it. */
export async function openChatStream(transport: Transport, body: unknown, options: ChatStreamOptions = {}): Promise<ChatStream> {
  const response = await send(transport, '/api/org/chat/message', {
    method: 'POST',
    body,
    headers: { accept: 'text/event-stream' },
    bodyTimeoutMs: options.idleTimeoutMs ?? 45_000,
  });
  const runId = response.headers['x-org-run-id'];
  if (typeof runId !== 'string' || runId === '') {
    response.body.destroy();
    throw new OrgError('internal', 'the server did not name the run (no X-Org-Run-Id header)');
  }
  return new RunStream(transport, runId, response, 0, options);
}

/** Follows an existing run from after `after` (0: from its first event). */
export function followRun(transport: Transport, runId: string, after = 0, options: ChatStreamOptions = {}): ChatStream {
  return new RunStream(transport, runId, undefined, after, options);
}
