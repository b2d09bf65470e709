/**
 * The web UI's HTTP client: every call carries the user's bearer token, JSON in and
 * out, and every failure becomes an {@link ApiError} built from the problem details.
 */
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
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Reads a failed response into an ApiError (problem+json or not). */
export async function toApiError(response: Response): Promise<ApiError> {
  let problem: Problem = { status: response.status, title: response.statusText };
  try {
    const text = await response.text();
    if (text) {
      const parsed = JSON.parse(text) as Partial<Problem>;
      if (parsed && typeof parsed === 'object') problem = { ...problem, ...parsed, status: response.status };
    }
  } catch {
    // Not JSON: keep the status line.
  }
  return new ApiError(problem);
}

/** Builds a path with a query string (undefined members left out). */
export function withQuery(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** An API client bound to one token. */
export interface Api {
  readonly token: string;
  get<T>(path: string, options?: RequestOptions): Promise<T>;
  post<T>(path: string, body?: unknown, options?: RequestOptions): Promise<T>;
  patch<T>(path: string, body: unknown, options?: RequestOptions): Promise<T>;
  del(path: string, options?: RequestOptions): Promise<void>;
  /** A raw response (for streams); throws ApiError when not ok. */
  raw(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** Downloads a file with the bearer and hands it to the browser as a download. */
  download(path: string, filename: string): Promise<void>;
}

/**
 * Creates a client for `token`. `onUnauthorized` runs on any 401 (a revoked or unknown
 * token), so the app can go back to the sign-in page.
 */
export function createApi(token: string, onUnauthorized: () => void = () => undefined, base = ''): Api {
  const raw = async (method: string, path: string, options: RequestOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(base + withQuery(path, options.query), {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      cache: 'no-store',
    });
    if (!response.ok) {
      const error = await toApiError(response);
      if (response.status === 401 && token) onUnauthorized();
      throw error;
    }
    return response;
  };
  const json = async <T>(method: string, path: string, options?: RequestOptions): Promise<T> => {
    const response = await raw(method, path, options);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    token,
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
