/**
 * Chat streams: the events of a run, iterated as `{seq, event}`, with the one
 * reconnect policy of every client. A connection that drops (or goes silent) before the
 * terminal event is picked up again with `GET /chat/runs/{id}/events` and
 * `Last-Event-ID`, after a pause that doubles each time (250 ms … 5 s) and for at most 8
 * attempts in a row without a new event; so no event is lost or repeated, and the turn
 * itself never stops because a connection did.
 */
import { isTerminal, type ChatEvent } from '../core/chat/types.js';
import { isEventEnvelope } from './envelope.js';
import { OrgError, isOrgError } from '../core/errors.js';
import { call, send, type Transport } from './http.js';
import { isTransient } from './problem.js';
import { readSse } from './sse.js';

/** One event of a run with its sequence number (the frame's `id:`; undefined when the server sent none). */
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
  /** Why the connection is being made again. */
  reason: string;
}

/** The reconnect policy of a chat stream; every member has a default in {@link STREAM_DEFAULTS}. */
export interface ChatStreamOptions {
  /** Reconnections in a row without a new event before giving up (default 8). */
  maxReconnects?: number;
  /** Pause before the first retry, in ms, doubled for each further one (default 250). */
  retryDelayMs?: number;
  /** Longest pause between retries, in ms (default 5,000). */
  maxRetryDelayMs?: number;
  /** A connection silent for this long is taken for dropped (ms; default 45 s: the server sends keepalives every 15 s). */
  idleTimeoutMs?: number;
  /** Called before each reconnection. */
  onReconnect?: (info: ReconnectInfo) => void;
  /**
   * Which frames hold an event (default {@link isEventEnvelope}, the light envelope check;
   * the Node client passes the full schema check, `isChatEvent`).
   */
  isEvent?: (value: unknown) => value is ChatEvent;
  /** Ends the iteration and drops the connection (the turn goes on on the server). */
  signal?: AbortSignal;
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

/** Defaults of {@link ChatStreamOptions}. */
export const STREAM_DEFAULTS = { maxReconnects: 8, retryDelayMs: 250, maxRetryDelayMs: 5_000, idleTimeoutMs: 45_000, isEvent: isEventEnvelope } as const;

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The chat event a frame's data carries, checked with `isEvent` (by default the envelope
 * check); undefined when the data is not JSON or not an event.
 */
export function parseEventData(data: string, isEvent: (value: unknown) => value is ChatEvent = isEventEnvelope): ChatEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  return isEvent(value) ? value : undefined;
}

/** Cancels a run; a run that already ended (409) is not an error. */
export async function cancelRun(transport: Transport, runId: string): Promise<void> {
  try {
    await call(transport, `/api/org/chat/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });
  } catch (error) {
    if (isOrgError(error) && error.code === 'conflict') return;
    throw error;
  }
}

const eventsPath = (runId: string) => `/api/org/chat/runs/${encodeURIComponent(runId)}/events`;

class RunStream implements ChatStream {
  #lastEventId: number;
  #first: Response | undefined;
  readonly #controller = new AbortController();
  readonly #options: Required<Omit<ChatStreamOptions, 'onReconnect' | 'signal'>> & Pick<ChatStreamOptions, 'onReconnect'>;

  constructor(
    private readonly transport: Transport,
    readonly runId: string,
    first: Response | undefined,
    after: number,
    options: ChatStreamOptions,
  ) {
    this.#first = first;
    this.#lastEventId = after;
    const { signal, ...rest } = options;
    this.#options = { ...STREAM_DEFAULTS, ...rest };
    if (signal?.aborted) this.close();
    else signal?.addEventListener('abort', () => this.close(), { once: true });
  }

  get lastEventId(): number {
    return this.#lastEventId;
  }

  cancel(): Promise<void> {
    return cancelRun(this.transport, this.runId);
  }

  close(): void {
    this.#controller.abort();
    this.#first?.body?.cancel().catch(() => undefined);
  }

  /** Opens the resume connection; undefined when the run has ended with nothing more to send (204). */
  async #resume(): Promise<Response | undefined> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.#lastEventId > 0) headers['last-event-id'] = String(this.#lastEventId);
    const response = await send(this.transport, eventsPath(this.runId), { headers, signal: this.#controller.signal });
    if (response.status === 204) return undefined;
    return response;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamedEvent> {
    const closed = this.#controller.signal;
    let response = this.#first;
    this.#first = undefined;
    let failures = 0;
    let failure: unknown;
    while (!closed.aborted) {
      try {
        if (!response) {
          response = await this.#resume();
          if (!response) return; // finished, and everything was seen
        }
        const body = response.body;
        response = undefined;
        if (!body) throw new OrgError('unavailable', 'the server sent no stream body');
        for await (const message of readSse(body, { idleTimeoutMs: this.#options.idleTimeoutMs, signal: closed })) {
          const event = parseEventData(message.data, this.#options.isEvent);
          if (!event) continue; // not an event of ours; the server never sends such a frame
          const seq = message.id !== undefined && /^\d+$/.test(message.id) ? Number(message.id) : undefined;
          if (seq !== undefined) {
            // A replay never repeats what was seen; guard anyway (ids only grow).
            if (seq <= this.#lastEventId) continue;
            this.#lastEventId = seq;
          }
          failures = 0;
          yield { seq, event };
          // A terminal event ends the run; an error frame without an id ends this stream
          // (a revoked key), which no reconnection can change.
          if (isTerminal(event)) return;
        }
        failure = new OrgError('unavailable', 'the stream ended before the turn did');
      } catch (error) {
        if (closed.aborted) return;
        // A 401 or a 404 will not get better by trying again.
        if (!isTransient(error)) throw error;
        failure = error;
      }
      if (closed.aborted) return;
      if (++failures > this.#options.maxReconnects) break;
      const reason = failure instanceof Error ? failure.message : String(failure);
      this.#options.onReconnect?.({ runId: this.runId, attempt: failures, lastEventId: this.#lastEventId, reason });
      const retryAfter = isOrgError(failure) && failure.retryAfter !== undefined ? failure.retryAfter * 1000 : 0;
      const backoff = Math.min(this.#options.retryDelayMs * 2 ** (failures - 1), this.#options.maxRetryDelayMs);
      await pause(Math.max(backoff, retryAfter), closed);
    }
    if (closed.aborted) return;
    throw new OrgError('unavailable', `lost the stream of run ${this.runId} and could not resume it; follow it later with: org chat --run ${this.runId}`, {
      cause: failure,
      extra: { run_id: this.runId },
    });
  }
}

/**
 * Sends a chat message and returns its live stream once the server has accepted it.
 * `headers` go with the message request only (e.g. the caller's W3C `traceparent`).
 */
export async function openChatStream(transport: Transport, body: unknown, options: ChatStreamOptions = {}, headers: Readonly<Record<string, string>> = {}): Promise<ChatStream> {
  const response = await send(transport, '/api/org/chat/message', {
    method: 'POST',
    body,
    headers: { ...headers, accept: 'text/event-stream' },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const runId = response.headers.get('x-org-run-id');
  if (!runId) {
    await response.body?.cancel().catch(() => undefined);
    throw new OrgError('internal', 'the server did not name the run (no X-Org-Run-Id header)');
  }
  return new RunStream(transport, runId, response, 0, options);
}

/** Follows an existing run from after event `after` (0: from its first event). */
export function followRun(transport: Transport, runId: string, after = 0, options: ChatStreamOptions = {}): ChatStream {
  return new RunStream(transport, runId, undefined, after, options);
}
