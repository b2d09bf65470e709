/**
 * A small SSE client for the chat tests: real HTTP through undici, the raw bytes kept
 * (so tests can compare them exactly), frames and comments parsed as they arrive,
 * waits on conditions, and an abort that drops the connection like a closed browser tab.
 */
import { request } from 'undici';
import type { Dispatcher } from 'undici';

/** One SSE frame as received. */
export interface Frame {
  id?: string;
  data?: string;
  /** `data` parsed as JSON (undefined when there is none). */
  event?: { type: string; content: unknown; timestamp: string };
}

/** An open (or finished) response from the server. */
export interface SseResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Every byte received so far, as text. */
  readonly text: string;
  /** The complete frames received so far (comments excluded). */
  frames(): Frame[];
  /** The comment lines received so far (`: keepalive` → `keepalive`). */
  comments(): string[];
  /** Resolves once `predicate` holds (checked on every chunk); rejects after `ms`. */
  until(predicate: (response: SseResponse) => boolean, ms?: number): Promise<void>;
  /** Resolves when the server ends the body (or the connection breaks / is aborted). */
  readonly ended: Promise<void>;
  /** True once the body ended. */
  readonly done: boolean;
  /** Drops the connection. */
  abort(): void;
  /** The body parsed as JSON (for non-SSE answers); waits for the end. */
  json<T = Record<string, unknown>>(): Promise<T>;
}

/** Options of {@link open}. */
export interface OpenOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  dispatcher?: Dispatcher;
}

/** Parses raw SSE text into frames and comments (only complete blocks). */
export function parseSse(text: string): { frames: Frame[]; comments: string[] } {
  const frames: Frame[] = [];
  const comments: string[] = [];
  const blocks = text.split('\n\n');
  blocks.pop(); // an incomplete tail
  for (const block of blocks) {
    const frame: Frame = {};
    let isFrame = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) {
        frame.id = line.slice(4);
        isFrame = true;
      } else if (line.startsWith('data: ')) {
        frame.data = frame.data === undefined ? line.slice(6) : `${frame.data}\n${line.slice(6)}`;
        isFrame = true;
      }
    }
    if (!isFrame) continue;
    if (frame.data !== undefined) frame.event = JSON.parse(frame.data) as Frame['event'];
    frames.push(frame);
  }
  return { frames, comments };
}

/** Opens a request and returns at once with the status and headers; the body streams in. */
export async function open(url: string, options: OpenOptions = {}): Promise<SseResponse> {
  const controller = new AbortController();
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await request(url, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    body: options.body === undefined ? null : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    signal: controller.signal,
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
  });
  let text = '';
  let done = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const ended = new Promise<void>((resolve) => {
    response.body.setEncoding('utf8');
    response.body.on('data', (chunk: string) => {
      text += chunk;
      notify();
    });
    const finish = () => {
      done = true;
      resolve();
      notify();
    };
    response.body.on('end', finish);
    response.body.on('error', finish);
    response.body.on('close', finish);
  });
  const self: SseResponse = {
    status: response.statusCode,
    headers: response.headers,
    get text() {
      return text;
    },
    get done() {
      return done;
    },
    ended,
    frames: () => parseSse(text).frames,
    comments: () => parseSse(text).comments,
    until(predicate, ms = 20_000) {
      if (predicate(self)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`condition not met within ${ms} ms; received:\n${text.slice(-2000)}`));
        }, ms);
        const check = () => {
          let ok: boolean;
          try {
            ok = predicate(self);
          } catch (error) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(error as Error);
            return;
          }
          if (ok) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (done) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`the body ended before the condition held; received:\n${text.slice(-2000)}`));
          }
        };
        waiters.add(check);
      });
    },
    abort() {
      controller.abort();
    },
    async json<T>() {
      await ended;
      return JSON.parse(text) as T;
    },
  };
  return self;
}

/** Event types of frames, in order. */
export function typesOf(frames: Frame[]): string[] {
  return frames.map((frame) => frame.event?.type ?? '?');
}

/**
 * Waits until `predicate` holds, checking it again every 10 ms, for state that has no
 * event to wait on (another process's output, a history read over HTTP). No deadline of
 * its own: a condition that never holds fails by the test's timeout, whatever the load.
 */
export async function eventually(predicate: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await predicate())) await new Promise((resolve) => setTimeout(resolve, 10));
}
