/**
 * The transport of the client: one undici request per call, JSON in and out, and every
 * failure turned into an `OrgError` — problem+json answers keep their code and detail,
 * a refused connection says how to start a server.
 */
import { request, type Dispatcher } from 'undici';
import { ERROR_STATUS, OrgError, type ErrorCode, type FieldError } from '../core/errors.js';

/** How to reach a server. */
export interface Transport {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:4780`. */
  url: string;
  /** Bearer token (omitted for public routes). */
  token?: string;
  /** An undici dispatcher (tests, proxies); default: the global one. */
  dispatcher?: Dispatcher;
  /** Time to wait for response headers, in ms (default 30 s; streams wait longer). */
  headersTimeoutMs?: number;
}

/** One call. */
export interface CallOptions {
  method?: Dispatcher.HttpMethod;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the bearer token (default true). */
  auth?: boolean;
  signal?: AbortSignal;
  headersTimeoutMs?: number;
  /** 0 disables the body timeout (streams). */
  bodyTimeoutMs?: number;
}

/** Builds the absolute URL of `path` with a query string. */
export function urlOf(base: string, path: string, query?: CallOptions['query']): string {
  const url = new URL(path, `${base}/`);
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  return url.toString();
}

/** Turns a network failure into an `OrgError` (`unavailable`) with a one-line message. */
export function networkError(base: string, error: unknown): OrgError {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err.code ?? err.cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new OrgError('unavailable', `no org server at ${base} — start one with: org serve`, { cause: error });
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new OrgError('timeout', `the org server at ${base} did not answer in time`, { cause: error });
  }
  return new OrgError('unavailable', `lost the connection to ${base}: ${err.message ?? String(error)}`, { cause: error });
}

const CODE_OF_STATUS = new Map<number, ErrorCode>(Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]));

/** Builds an `OrgError` from a non-2xx answer (problem+json or anything else). */
export function problemError(status: number, text: string, headers: Record<string, string | string[] | undefined>): OrgError {
  let problem: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) problem = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: a proxy or something that is not an org server answered.
  }
  const declared = typeof problem.code === 'string' && problem.code in ERROR_STATUS ? (problem.code as ErrorCode) : undefined;
  const code = declared ?? CODE_OF_STATUS.get(status) ?? (status >= 500 ? 'internal' : 'invalid_request');
  const detail = typeof problem.detail === 'string' && problem.detail ? problem.detail : typeof problem.title === 'string' ? problem.title : `HTTP ${status}`;
  const errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : undefined;
  const extra: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(problem)) {
    if (!['type', 'title', 'status', 'detail', 'code', 'errors'].includes(name)) extra[name] = value;
  }
  const retry = Number(headers['retry-after']);
  const message = errors?.length ? `${detail} (${errors.map((e) => `${e.path}: ${e.message}`).join('; ')})` : detail;
  return new OrgError(code, message, {
    ...(errors ? { errors } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
    ...(Number.isFinite(retry) ? { retryAfter: retry } : {}),
  });
}

/** Sends one request and returns the raw undici response when its status is 2xx. */
export async function send(transport: Transport, path: string, options: CallOptions = {}): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.auth !== false && transport.token) headers.authorization = `Bearer ${transport.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Dispatcher.ResponseData;
  try {
    response = await request(urlOf(transport.url, path, options.query), {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body: body ?? null,
      headersTimeout: options.headersTimeoutMs ?? transport.headersTimeoutMs ?? 30_000,
      bodyTimeout: options.bodyTimeoutMs ?? 30_000,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(transport.dispatcher ? { dispatcher: transport.dispatcher } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw networkError(transport.url, error);
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await response.body.text().catch(() => '');
  throw problemError(response.statusCode, text, response.headers);
}

/** Sends a request and parses its JSON answer (undefined for 204). */
export async function call<T>(transport: Transport, path: string, options: CallOptions = {}): Promise<T> {
  const response = await send(transport, path, options);
  let text: string;
  try {
    text = await response.body.text();
  } catch (error) {
    throw networkError(transport.url, error);
  }
  if (response.statusCode === 204 || text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new OrgError('internal', `the server at ${transport.url} sent an answer that is not JSON`);
  }
}
