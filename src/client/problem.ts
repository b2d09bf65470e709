/**
 * The client's one reading of failures: a non-2xx answer (problem+json or anything
 * else) and a network failure each become an `OrgError` with the code of API.md §2, so
 * the CLI, the MCP bridge and the web all show the same words and map the same codes.
 * Runs in Node and in the browser (no Node-only imports).
 */
import { ERROR_STATUS, OrgError, isOrgError, type ErrorCode, type FieldError } from '../core/errors.js';

/** The generic code of each status (the first listed: 403 is `forbidden`, not `instance_skill`). */
const CODE_OF_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS)
    .reverse()
    .map(([code, status]) => [status, code as ErrorCode]),
);
const STANDARD_MEMBERS = new Set(['type', 'title', 'status', 'detail', 'code', 'errors', 'instance']);

function isFieldError(value: unknown): value is FieldError {
  return Boolean(value) && typeof (value as FieldError).path === 'string' && typeof (value as FieldError).message === 'string';
}

/**
 * Builds the `OrgError` of a failed answer. The message is the server's `detail` (which
 * the server words for people); field errors, extra members (`run_id`) and `Retry-After`
 * are kept on the error.
 *
 * @example
 * problemError(404, '{"code":"not_found","detail":"skill x not found"}') // OrgError not_found "skill x not found"
 */
export function problemError(status: number, text: string, retryAfter?: string | null): OrgError {
  let problem: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) problem = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: a proxy, or something that is not an org server, answered.
  }
  const declared = typeof problem.code === 'string' && problem.code in ERROR_STATUS ? (problem.code as ErrorCode) : undefined;
  const code = declared ?? CODE_OF_STATUS.get(status) ?? (status >= 500 ? 'internal' : 'invalid_request');
  const detail =
    typeof problem.detail === 'string' && problem.detail
      ? problem.detail
      : typeof problem.title === 'string' && problem.title
        ? problem.title
        : `the server answered HTTP ${status}`;
  const errors = Array.isArray(problem.errors) ? problem.errors.filter(isFieldError) : undefined;
  const extra: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(problem)) if (!STANDARD_MEMBERS.has(name)) extra[name] = value;
  const seconds = retryAfter ? Number(retryAfter) : Number.NaN;
  return new OrgError(code, detail, {
    ...(errors?.length ? { errors } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
    ...(Number.isFinite(seconds) ? { retryAfter: seconds } : {}),
  });
}

/** The `code` of a Node network error (`ECONNREFUSED`), also when wrapped by fetch as its `cause`. */
function systemCode(error: unknown): string | undefined {
  const err = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = err?.code ?? err?.cause?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Turns a failure to reach `base` into an `OrgError`: `unavailable` with a one-line
 * message saying how to start a server, or `timeout`.
 */
export function networkError(base: string, error: unknown): OrgError {
  if (isOrgError(error)) return error;
  const code = systemCode(error);
  const name = (error as { name?: unknown } | undefined)?.name;
  if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new OrgError('timeout', `the org server at ${base} did not answer in time`, { cause: error });
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new OrgError('unavailable', `no org server at ${base} — start one with: org serve`, { cause: error });
  }
  const cause = (error as { cause?: { message?: unknown } } | undefined)?.cause;
  const reason = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return new OrgError('unavailable', `lost the connection to ${base}: ${reason}`, { cause: error });
}

/** True for failures worth retrying: the server was unreachable, slow, busy or restarting. */
export function isTransient(error: unknown): boolean {
  if (!isOrgError(error)) return true;
  return error.code === 'unavailable' || error.code === 'timeout' || error.code === 'rate_limited' || error.code === 'internal';
}
