/**
 * Maps every error, ours or Fastify's, to RFC 9457 problem details (API.md §2). The
 * one place where errors become responses; nothing else writes an error body.
 */
import { STATUS_CODES } from 'node:http';
import { ERROR_STATUS, ERROR_TITLE, type ErrorCode, type FieldError, OrgError } from '../core/errors.js';
import type { Problem } from '../core/schemas/problem.js';

/** A problem-details body (the core's Problem record). */
export type ProblemBody = Problem;

/** A response derived from an error. */
export interface ProblemResponse {
  status: number;
  body: ProblemBody;
  headers: Record<string, string>;
  /** True when the error was unexpected and should be logged with its stack. */
  unexpected: boolean;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: { instancePath?: string; message?: string; params?: Record<string, unknown>; keyword?: string }[];
  validationContext?: string;
}

/** The generic code of each status (the first listed: 409 is `conflict`, not `already_exists`). */
const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS)
    .reverse()
    .map(([code, status]) => [status, code as ErrorCode]),
);

/** Longest path segment (a path parameter) the router accepts; longer → 414. */
export const MAX_PATH_SEGMENT = 2048;

/** Builds problem details for a code. */
export function problemBody(code: ErrorCode, detail: string, errors?: FieldError[], extra?: Record<string, unknown>): ProblemBody {
  return {
    ...extra,
    type: `urn:org:problem:${code}`,
    title: ERROR_TITLE[code],
    status: ERROR_STATUS[code],
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

function fieldErrors(error: FastifyLikeError): FieldError[] {
  const context = error.validationContext ?? 'body';
  return (error.validation ?? []).map((issue) => {
    const segments = (issue.instancePath ?? '').split('/').filter(Boolean);
    const missing = issue.params?.missingProperty;
    if (typeof missing === 'string') segments.push(missing);
    const extra = issue.params?.additionalProperty;
    if (typeof extra === 'string') segments.push(extra);
    let message = issue.message ?? 'is invalid';
    if (issue.keyword === 'pattern') message = 'has an invalid format';
    if (issue.keyword === 'anyOf') message = 'does not match any allowed shape';
    return { path: [context, ...segments].join('.'), message };
  });
}

function summarize(errors: FieldError[]): string {
  const first = errors[0];
  if (!first) return 'the request is invalid';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return `${first.path} ${first.message}${more}`;
}

/** Converts any thrown value into a problem response. Never leaks stacks or paths. */
export function toProblem(error: unknown): ProblemResponse {
  if (error instanceof OrgError) {
    const headers: Record<string, string> = {};
    if (error.code === 'unauthorized') headers['www-authenticate'] = 'Bearer realm="org"';
    if (error.retryAfter !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(error.retryAfter)));
    return { status: error.status, body: problemBody(error.code, error.message, error.errors, error.extra), headers, unexpected: false };
  }
  const e = (error ?? {}) as FastifyLikeError;
  if (e.validation) {
    const errors = fieldErrors(e);
    return { status: 400, body: problemBody('invalid_request', summarize(errors), errors), headers: {}, unexpected: false };
  }
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return simple('payload_too_large', 'the request body is larger than the server accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return simple('unsupported_media_type', 'send the body as application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return simple('invalid_request', 'the JSON body is empty');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return simple('invalid_request', 'the Content-Length header does not match the body');
    case 'FST_ERR_BAD_URL':
      return simple('invalid_request', 'the URL is not valid: a percent sign must start a valid %XX escape of UTF-8');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return simple('uri_too_long', `a path segment is longer than ${MAX_PATH_SEGMENT} characters`);
  }
  if (error instanceof SyntaxError && e.statusCode === 400) return simple('invalid_request', 'the body is not valid JSON');
  const status = e.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = CODE_BY_STATUS.get(status) ?? 'invalid_request';
    return simple(code, safeMessage(e.message) ?? ERROR_TITLE[code]);
  }
  return { ...simple('internal', 'an internal error occurred; it has been logged'), unexpected: true };
}

function simple(code: ErrorCode, detail: string): ProblemResponse {
  return { status: ERROR_STATUS[code], body: problemBody(code, detail), headers: {}, unexpected: false };
}

/** Framework messages of client errors are shown only when they carry no path-like text. */
function safeMessage(message: string | undefined): string | undefined {
  if (!message || /[\\/]\w+[\\/]|\bat\s+\S+:\d+/.test(message)) return undefined;
  return message;
}

/**
 * The problem for a request Node's HTTP parser refused before any route saw it (the
 * `clientError` event): a timeout, a request line and headers over the size limit, or
 * bytes that are not HTTP/1.1.
 */
export function clientErrorProblem(error: { code?: string }): ProblemResponse {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return simple('request_timeout', 'the request was not received in time');
    case 'HPE_HEADER_OVERFLOW':
      return simple('headers_too_large', 'the request line and headers are larger than the server accepts (16 KiB)');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return simple('invalid_request', 'the chunk extensions of the body are too large');
    default:
      return simple('invalid_request', 'the request is not valid HTTP/1.1');
  }
}

/** A problem response as raw HTTP/1.1 bytes, for a socket no request object exists for; the connection closes. */
export function rawProblemResponse(problem: ProblemResponse): string {
  const body = JSON.stringify(problem.body);
  const headers = Object.entries(problem.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return (
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? problem.body.title}\r\n` +
    `content-type: application/problem+json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `${headers}connection: close\r\n\r\n${body}`
  );
}
