/**
 * The web UI's API client: the shared transport of `src/client` (one fetch per call,
 * the bearer token, problem+json read into an `OrgError` once for the CLI, the MCP
 * bridge and the browser), with failures handed to the UI as an {@link ApiError} that
 * carries the problem's members, and network failures as fetch's own `TypeError`. Chat
 * streams use the same transport through the shared client's `openChatStream` and
 * `followRun` (one SSE reading loop and one reconnect policy for every client).
 */
import { isOrgError, type OrgError } from '../../../src/core/errors.js';
import { open, type CallOptions, type Transport } from '../../../src/client/http.js';
import type { Problem } from './types';

/** A failed API call, carrying the server's problem details. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(describeProblem(problem));
    this.name = 'ApiError';
    this.status = problem.status;
    this.problem = problem;
  }

  /** The problem the shared transport read from a failed answer (its `Retry-After` as `retry_after`). */
  static from(error: OrgError): ApiError {
    return new ApiError({
      ...error.extra,
      type: `urn:org:problem:${error.code}`,
      title: '',
      status: error.status,
      detail: error.message,
      code: error.code,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
    });
  }
}

/**
 * What the UI shows for a failure of the shared client: an `OrgError` read from an answer
 * becomes an {@link ApiError}, a server that could not be reached fetch's `TypeError`;
 * anything else (the caller's own abort) is returned as it is.
 */
export function apiFailure(error: unknown): unknown {
  if (!isOrgError(error)) return error;
  if (error.cause instanceof TypeError) return error.cause;
  return ApiError.from(error);
}

/** One readable sentence from problem details: the detail plus field errors. */
export function describeProblem(problem: Problem): string {
  const base = problem.detail || problem.title || `request failed with status ${problem.status}`;
  const fields = (problem.errors ?? []).filter((error) => !base.includes(`${error.path} ${error.message}`));
  if (fields.length === 0) return base;
  return `${base} — ${fields.map((error) => `${error.path} ${error.message}`).join('; ')}`;
}

/** A readable message for anything thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof DOMException && error.name === 'AbortError') return 'cancelled';
  if (error instanceof TypeError) return `the server could not be reached (${error.message})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export interface RequestOptions {
  body?: unknown;
  /** Query members; undefined and empty ones are left out. */
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** An API client bound to one token. */
export interface Api {
  readonly token: string;
  /** The shared client's transport (for chat streams: `openChatStream`, `followRun`, `cancelRun`). */
  readonly transport: Transport;
  get<T>(path: string, options?: RequestOptions): Promise<T>;
  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  patch<T>(path: string, body: unknown, options?: RequestOptions): Promise<T>;
  del(path: string, options?: RequestOptions): Promise<void>;
  /** A raw response (a download); throws ApiError when not ok. */
  raw(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** Downloads a file with the bearer and hands it to the browser as a download. */
  download(path: string, filename: string): Promise<void>;
}

/**
 * Creates a client for `token`. `onUnauthorized` runs on any 401 (a revoked or unknown
 * token), so the app can go back to the sign-in page.
 */
export function createApi(token: string, onUnauthorized: () => void = () => undefined, base = ''): Api {
  const transport: Transport = {
    url: base,
    ...(token ? { token } : {}),
    // Answers change under the UI (a node's state, a skill): never from the HTTP cache.
    fetch: (input, init) => fetch(input, { ...init, cache: 'no-store' }),
    // The browser has its own limits; a stream or a long turn may take as long as it takes.
    timeoutMs: 0,
    onUnauthorized,
  };
  const raw = async (method: string, path: string, options: RequestOptions = {}): Promise<Response> => {
    const query = Object.fromEntries(Object.entries(options.query ?? {}).filter(([, value]) => value !== undefined && value !== ''));
    try {
      const exchange = await open(transport, path, {
        method: method as CallOptions['method'],
        query,
        ...(options.body !== undefined ? { body: options.body } : {}),
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        timeout: 'headers',
      });
      return exchange.response;
    } catch (error) {
      throw apiFailure(error);
    }
  };
  const json = async <T>(method: string, path: string, options?: RequestOptions): Promise<T> => {
    const response = await raw(method, path, options);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    token,
    transport,
    get: (path, options) => json('GET', path, options),
    post: (path, body, options) => json('POST', path, { ...options, ...(body !== undefined ? { body } : {}) }),
    patch: (path, body, options) => json('PATCH', path, { ...options, body }),
    del: async (path, options) => {
      await raw('DELETE', path, options);
    },
    raw,
    async download(path, filename) {
      const response = await raw('GET', path, { headers: { accept: '*/*' } });
      const blob = await response.blob();
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      link.rel = 'noopener';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  };
}

export const structurePath = (structureId: string) => `/api/org/structures/${encodeURIComponent(structureId)}`;
export const nodePath = (structureId: string, roleId: string) => `${structurePath(structureId)}/agents/${encodeURIComponent(roleId)}`;
