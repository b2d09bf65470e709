/**
 * The client's transport: one `fetch` per call, JSON in and out, every failure an
 * `OrgError` (problem.ts). It uses only what both Node (20+) and browsers have — fetch,
 * AbortController, URL — so the same code serves the CLI, the MCP bridge and the web UI.
 */
import { OrgError } from '../core/errors.js';
import { networkError, problemError } from './problem.js';

/** The fetch function the client calls (the global one unless a test or an app gives another). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** How to reach a server. */
export interface Transport {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:4780`; `''` in a browser on the same origin. */
  url: string;
  /** Bearer token (left out of public routes). */
  token?: string;
  fetch: FetchLike;
  /** How long a call may take before it fails with `timeout`, in ms (streams: until the headers arrive). */
  timeoutMs: number;
  /** Called on every 401 answer to a call that carried a token (a revoked or unknown token). */
  onUnauthorized?: () => void;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON (`content-type: application/json`); undefined sends no body. */
  body?: unknown;
  /** A body sent as it is with its media type (e.g. a zip), instead of JSON. */
  raw?: { data: Uint8Array; contentType: string };
  headers?: Record<string, string>;
  /** Send the bearer token (default true). */
  auth?: boolean;
  signal?: AbortSignal;
  /**
   * `call`: the whole call must end within the transport's timeout (default); `headers`:
   * only the headers (a stream or a download may then take as long as it takes);
   * a number: the whole call, with this many ms.
   */
  timeout?: 'call' | 'headers' | number;
}

/** Options every client method takes. */
export interface RequestOptions {
  /** Aborts the call (the server is not told; a chat turn goes on). */
  signal?: AbortSignal;
}

/** Builds the URL of `path` under `base` with a query string (undefined members left out). */
export function urlOf(base: string, path: string, query?: CallOptions['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return `${base}${path}${search ? `?${search}` : ''}`;
}

/** An AbortController that follows `outer` and can also be aborted on its own (a timer). */
function linkedController(outer: AbortSignal | undefined): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  if (!outer) return { controller, unlink: () => undefined };
  const forward = () => controller.abort(outer.reason);
  if (outer.aborted) forward();
  else outer.addEventListener('abort', forward, { once: true });
  return { controller, unlink: () => outer.removeEventListener('abort', forward) };
}

/** The abort reason of a timeout, recognised by {@link networkError}. */
function timeoutReason(): Error {
  const error = new Error('timed out');
  error.name = 'TimeoutError';
  return error;
}

/** An answer whose headers have arrived; `finish` ends its timer once the body is read. */
export interface Exchange {
  response: Response;
  finish(): void;
}

/**
 * Sends one request and returns the response when its status is 2xx; anything else
 * throws the server's problem as an `OrgError`. An abort by the caller's signal is
 * rethrown as it is (an `AbortError`), so callers can tell it from a failure. With the
 * `call` timeout the timer keeps running until `finish` (a stalled body fails too).
 */
export async function open(transport: Transport, path: string, options: CallOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const withToken = options.auth !== false && Boolean(transport.token);
  if (withToken) headers.authorization = `Bearer ${transport.token}`;
  // An ArrayBuffer-backed copy: fetch's BodyInit (DOM typings) takes no shared-buffer view.
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (options.raw !== undefined) {
    headers['content-type'] = options.raw.contentType;
    body = new Uint8Array(options.raw.data);
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const { controller, unlink } = linkedController(options.signal);
  const limit = typeof options.timeout === 'number' ? options.timeout : transport.timeoutMs;
  const timer = limit > 0 ? setTimeout(() => controller.abort(timeoutReason()), limit) : undefined;
  const finish = () => {
    clearTimeout(timer);
    if (options.timeout === 'headers') return; // the caller's signal still ends the stream
    unlink();
  };
  let response: Response;
  try {
    response = await transport.fetch(urlOf(transport.url, path, options.query), {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: controller.signal,
    });
  } catch (error) {
    clearTimeout(timer);
    unlink();
    if (options.signal?.aborted) throw error;
    throw networkError(transport.url, controller.signal.aborted ? controller.signal.reason : error);
  }
  if (options.timeout === 'headers') clearTimeout(timer);
  if (response.ok) return { response, finish };
  const text = await response.text().catch(() => '');
  clearTimeout(timer);
  unlink();
  if (response.status === 401 && withToken) transport.onUnauthorized?.();
  throw problemError(response.status, text, response.headers.get('retry-after'));
}

/** Sends a request whose body the caller reads as it comes (streams, downloads): only the headers are timed. */
export async function send(transport: Transport, path: string, options: Omit<CallOptions, 'timeout'> = {}): Promise<Response> {
  return (await open(transport, path, { ...options, timeout: 'headers' })).response;
}

/** Sends a request and parses its JSON answer with its status (`body` undefined for 204 and an empty body). */
export async function exchangeJson<T>(transport: Transport, path: string, options: CallOptions = {}): Promise<{ status: number; body: T }> {
  const { response, finish } = await open(transport, path, options);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw networkError(transport.url, error);
  } finally {
    finish();
  }
  if (response.status === 204 || text === '') return { status: response.status, body: undefined as T };
  try {
    return { status: response.status, body: JSON.parse(text) as T };
  } catch {
    throw new OrgError('internal', `the server at ${transport.url || 'this address'} sent an answer that is not JSON`);
  }
}

/** Sends a request and parses its JSON answer (undefined for 204 and an empty body). */
export async function call<T>(transport: Transport, path: string, options: CallOptions = {}): Promise<T> {
  return (await exchangeJson<T>(transport, path, options)).body;
}
