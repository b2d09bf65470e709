/**
 * One streamed HTTP exchange: POST a JSON body, read a `text/event-stream` answer with
 * eventsource-parser, chunk by chunk as each arrives, and say how it ended. Used by the
 * container relay and the LLM runtime, which turn each way of ending into their own
 * `error` message.
 *
 * Two clocks guard the exchange: the connect clock (connecting and receiving the
 * response headers) and the idle clock (time without any byte of the body, SSE
 * comments included). The caller's signal aborts the request at once.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { egressRefusalOf } from '../egress/gate.js';
import { loadUndici } from '../util/undici.js';

/** A streamed POST. */
export interface SseRequest {
  url: URL;
  headers: Record<string, string>;
  /** The JSON body, already serialized. */
  body: string;
  /** Aborts the request; the outcome is then `aborted`. */
  signal: AbortSignal;
  /** Time allowed to connect and receive the response headers. */
  connectTimeoutMs: number;
  /** Time allowed without any byte of the body. */
  idleTimeoutMs: number;
  /** The undici dispatcher to use (default: undici's global one). */
  dispatcher?: Dispatcher;
  /** Largest event read, in characters (default {@link MAX_EVENT_CHARS}); a larger one ends the exchange as `too-large`. */
  maxEventChars?: number;
}

/** What the caller does with the stream. */
export interface SseHandlers {
  /** Called for each SSE message in order; return `true` to stop reading (the request is then closed). */
  onMessage(message: EventSourceMessage): boolean | void;
  /**
   * Called after each chunk of the body has been parsed. A returned promise pauses
   * reading, and the idle clock, until it settles: this is how a caller applies
   * backpressure.
   */
  afterChunk?(): Promise<void> | undefined;
}

/** How a streamed exchange ended. */
export type SseOutcome =
  /** The server ended the stream. */
  | { kind: 'ended' }
  /** `onMessage` asked to stop. */
  | { kind: 'stopped' }
  /** The caller's signal aborted. */
  | { kind: 'aborted' }
  /** The connection could not be made (`detail` is the system code or message). */
  | { kind: 'unreachable'; detail: string }
  /** No response headers within the connect timeout. */
  | { kind: 'connect-timeout' }
  /** No byte within the idle timeout. */
  | { kind: 'idle-timeout' }
  /** The connection broke while the body was being read. */
  | { kind: 'lost'; detail: string }
  /** A status outside 2xx; `body` is the start of the answer (for the operator's log, never for users). */
  | { kind: 'status'; status: number; body: string }
  /** A 2xx answer that is not `text/event-stream`. */
  | { kind: 'content-type'; contentType: string }
  /** One event (its `data` lines and its unfinished line) grew past `limit` characters before its end; reading stopped there. */
  | { kind: 'too-large'; limit: number };

/**
 * The largest event read from a stream by default: 1 MiB (1,048,576 characters of its
 * `data` lines, the line still unfinished included). Without a bound, one `data:` line that
 * never ends would be buffered whole.
 */
export const MAX_EVENT_CHARS = 1024 * 1024;

/** A character count as people read it: `1 MiB`, `64 KiB`, `1000 characters`. */
export function formatChars(chars: number): string {
  if (chars % (1024 * 1024) === 0) return `${chars / (1024 * 1024)} MiB`;
  if (chars % 1024 === 0) return `${chars / 1024} KiB`;
  return `${chars} characters`;
}

const ABORTED = new Error('aborted by the caller');
const CONNECT_TIMEOUT = new Error('connect timeout');
const IDLE_TIMEOUT = new Error('idle timeout');
const DONE = new Error('done reading');
/** How much of an error answer is kept. */
const ERROR_BODY_LIMIT = 4096;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function detailOf(error: unknown): string {
  // The egress gate's refusal says which address and how an operator allows it.
  const refused = egressRefusalOf(error);
  if (refused) return refused.message;
  const code = codeOf(error);
  if (code && !code.startsWith('UND_ERR')) return code;
  return error instanceof Error && error.message ? error.message : String(error);
}

/** A restartable one-shot timer that can be paused. */
class Clock {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly onTimeout: () => void,
  ) {}

  start(): void {
    this.stop();
    this.timer = setTimeout(this.onTimeout, this.ms);
  }

  /** Restarts a running clock (cheap: reschedules the same timer). */
  touch(): void {
    this.timer?.refresh();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function isEventStream(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return /^\s*text\/event-stream\s*(?:;|$)/i.test(value ?? '');
}

async function readSome(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= limit) break;
  }
  return text.slice(0, limit);
}

/**
 * Reads an event stream fed chunk by chunk with eventsource-parser and hands each
 * message to `onMessage`, in order; once it asked to stop (`stopped`), nothing more is
 * handed over, not even the rest of the chunk that held the stopping message.
 */
class SseReader {
  stopped = false;
  /** Set when an event grew past the limit (the reader is then stopped too). */
  tooLarge = false;
  private readonly parser: EventSourceParser;
  /** Holds back a character split between chunks (and costs less per chunk than TextDecoder's streaming mode). */
  private readonly decoder = new StringDecoder('utf8');

  constructor(
    onMessage: SseHandlers['onMessage'],
    private readonly maxEventChars: number,
  ) {
    this.parser = createParser({
      onEvent: (message) => {
        if (!this.stopped && onMessage(message) === true) this.stopped = true;
      },
      // The parser's bound covers both ways an event grows: an unfinished line and `data:` lines without the blank line.
      maxBufferSize: maxEventChars,
      onError: (error) => {
        if (error.type !== 'max-buffer-size-exceeded') return;
        this.tooLarge = true;
        this.stopped = true;
      },
    });
  }

  /** Reads the next chunk of the stream. */
  feed(chunk: Buffer): void {
    if (!this.stopped) this.parser.feed(this.decoder.write(chunk));
  }

  /** Reads the end of the stream (an unfinished last frame is dropped). */
  end(): void {
    if (!this.stopped) this.parser.feed(this.decoder.end());
  }

  /** How a stopped reader ended: asked to by `onMessage`, or at an event past the limit. */
  outcome(): SseOutcome {
    return this.tooLarge ? { kind: 'too-large', limit: this.maxEventChars } : { kind: 'stopped' };
  }
}

/**
 * Feeds the body's chunks to `reader` as they arrive, each as it was received ('data'
 * events: an async iterator would join the chunks that queued up meanwhile into a new
 * Buffer, and take a promise step per chunk), pausing the body, and the idle clock, while
 * a promise returned by `afterChunk` is pending. Rejects with what a handler threw.
 */
function readBody(body: Readable, reader: SseReader, handlers: SseHandlers, signal: AbortSignal, idleClock: Clock, ours: () => SseOutcome | undefined): Promise<SseOutcome> {
  return new Promise<SseOutcome>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: SseOutcome | Error) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const resume = () => {
      if (settled) return;
      if (signal.aborted) return settle({ kind: 'aborted' });
      idleClock.start();
      body.resume();
    };
    function onData(chunk: Buffer): void {
      if (settled) return;
      // A chunk read just before an abort is dropped: nothing is relayed after it.
      if (signal.aborted) return settle({ kind: 'aborted' });
      try {
        idleClock.touch();
        reader.feed(chunk);
        if (reader.stopped) return settle(reader.outcome());
        const wait = handlers.afterChunk?.();
        if (!wait) return;
        body.pause();
        idleClock.stop();
        wait.then(resume, (error: unknown) => settle(error instanceof Error ? error : new Error(String(error))));
      } catch (error) {
        settle(error instanceof Error ? error : new Error(String(error)));
      }
    }
    function onEnd(): void {
      if (signal.aborted) return settle({ kind: 'aborted' });
      try {
        reader.end();
      } catch (error) {
        return settle(error instanceof Error ? error : new Error(String(error)));
      }
      settle(reader.stopped ? reader.outcome() : { kind: 'ended' });
    }
    function onError(error: unknown): void {
      settle(ours() ?? { kind: 'lost', detail: detailOf(error) });
    }
    function onClose(): void {
      // Closed without its end or an error: the connection went away.
      settle(ours() ?? { kind: 'lost', detail: 'the stream closed before its end' });
    }
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

/** POSTs `req.body` to `req.url` and feeds the event-stream answer to `handlers`. */
export async function streamSse(req: SseRequest, handlers: SseHandlers): Promise<SseOutcome> {
  // Before the clocks start: loading the client is no part of connecting.
  const { request } = await loadUndici();
  if (req.signal.aborted) return { kind: 'aborted' };
  const controller = new AbortController();
  const abort = (reason: Error) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onCallerAbort = () => abort(ABORTED);
  req.signal.addEventListener('abort', onCallerAbort, { once: true });
  const connectClock = new Clock(req.connectTimeoutMs, () => abort(CONNECT_TIMEOUT));
  const idleClock = new Clock(req.idleTimeoutMs, () => abort(IDLE_TIMEOUT));
  /** The outcome when the request failed because we aborted it, else undefined. */
  const ours = (): SseOutcome | undefined => {
    const reason: unknown = controller.signal.reason;
    if (reason === ABORTED) return { kind: 'aborted' };
    if (reason === CONNECT_TIMEOUT) return { kind: 'connect-timeout' };
    if (reason === IDLE_TIMEOUT) return { kind: 'idle-timeout' };
    return undefined;
  };
  connectClock.start();
  try {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: controller.signal,
        // Our own clocks give the timeouts their meaning; undici's would race them.
        headersTimeout: 0,
        bodyTimeout: 0,
        ...(req.dispatcher ? { dispatcher: req.dispatcher } : {}),
      });
    } catch (error) {
      const code = codeOf(error);
      if (code === 'UND_ERR_CONNECT_TIMEOUT') return ours() ?? { kind: 'connect-timeout' };
      return ours() ?? { kind: 'unreachable', detail: detailOf(error) };
    }
    connectClock.stop();
    idleClock.start();
    const { statusCode, headers, body } = response;
    if (statusCode < 200 || statusCode >= 300) {
      let text = '';
      try {
        text = await readSome(body, ERROR_BODY_LIMIT);
      } catch {
        // The start of an error answer is a courtesy; a broken one still reports the status.
        if (req.signal.aborted) return { kind: 'aborted' };
      }
      return { kind: 'status', status: statusCode, body: text };
    }
    if (!isEventStream(headers['content-type'])) {
      const contentType = headers['content-type'];
      return { kind: 'content-type', contentType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? '' };
    }

    return await readBody(body, new SseReader(handlers.onMessage, req.maxEventChars ?? MAX_EVENT_CHARS), handlers, req.signal, idleClock, ours);
  } finally {
    connectClock.stop();
    idleClock.stop();
    req.signal.removeEventListener('abort', onCallerAbort);
    // Closes the connection when we stop early; a no-op once the body was read to its end.
    abort(DONE);
  }
}
