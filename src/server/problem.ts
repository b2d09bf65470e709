/**
 * Maps every error, ours or Fastify's, to RFC 9457 problem details (API.md §2). The
 * one place where errors become responses; nothing else writes an error body.
 */
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

const CODE_BY_STATUS: Record<number, ErrorCode> = Object.fromEntries(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

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
  }
  if (error instanceof SyntaxError && e.statusCode === 400) return simple('invalid_request', 'the body is not valid JSON');
  const status = e.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'invalid_request';
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
