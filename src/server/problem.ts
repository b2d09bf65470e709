/**
 * Maps every error, ours or Fastify's, to RFC 9457 problem details (API.md §2). The
 * one place where errors become responses; nothing else writes an error body.
 */
import { STATUS_CODES } from 'node:http';
import { ERROR_STATUS, ERROR_TITLE, type ErrorCode, type FieldError, OrgError } from '../core/errors.js';
import type { Problem } from '../core/schemas/problem.js';
import { MEDIA_TYPE_PATTERN, ROLE_ID_PATTERN, SLUG_PATTERN } from '../core/util/index.js';

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

type ValidationIssue = NonNullable<FastifyLikeError['validation']>[number];

const KNOWN_PATTERNS: Record<string, string> = {
  [SLUG_PATTERN]: 'must be lowercase words joined by hyphens, e.g. plan-offsite',
  [ROLE_ID_PATTERN]: 'must be <team>-<role>: lowercase words joined by hyphens, e.g. exec-ceo',
  [MEDIA_TYPE_PATTERN]: 'must be a media type such as text/csv or text/plain; charset=utf-8 (no line breaks)',
};
const FORMATS: Record<string, string> = {
  uuid: 'must be a UUID',
  email: 'must be an e-mail address',
  'date-time': 'must be an ISO 8601 timestamp',
  uri: 'must be a URL',
};
const TYPES: Record<string, string> = { string: 'a string', number: 'a number', integer: 'a whole number', boolean: 'true or false', object: 'an object', array: 'a list', null: 'null' };

/** What an issue means, in words: never a schema keyword or a JSON pointer. */
function issueMessage(issue: ValidationIssue): string {
  const params = issue.params ?? {};
  const limit = params.limit;
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[] | undefined)?.map(String).join(', ') ?? 'the allowed values'}`;
    case 'pattern':
      return KNOWN_PATTERNS[String(params.pattern)] ?? 'has an invalid format';
    case 'format':
      return FORMATS[String(params.format)] ?? `must be a valid ${String(params.format)}`;
    case 'type': {
      if (typeof params.type !== 'string' && !Array.isArray(params.type)) return issue.message ?? 'has the wrong type';
      const types = String(params.type).split(',').map((type) => TYPES[type] ?? type);
      return `must be ${types.join(' or ')}`;
    }
    case 'minLength':
      return limit === 1 ? 'must not be empty' : `must be at least ${String(limit)} characters long`;
    case 'maxLength':
      return `must be at most ${String(limit)} characters long`;
    case 'minimum':
      return `must be at least ${String(limit)}`;
    case 'maximum':
      return `must be at most ${String(limit)}`;
    case 'exclusiveMinimum':
      return `must be more than ${String(limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(limit)}`;
    case 'minItems':
      return `must have at least ${String(limit)} item(s)`;
    case 'maxItems':
      return `must have at most ${String(limit)} item(s)`;
    case 'additionalProperties':
      return 'is not allowed here';
    case 'anyOf':
    case 'oneOf':
      return 'does not match any allowed shape';
    default:
      return issue.message ?? 'is invalid';
  }
}

/**
 * The field errors of a validation failure, one per field. Where a field had to be one
 * of several constants (a union of literals, such as a role), Ajv reports one error per
 * constant plus the union: they become one "must be one of …".
 */
function fieldErrors(error: FastifyLikeError): FieldError[] {
  const context = error.validationContext ?? 'body';
  const issues = error.validation ?? [];
  const pathOf = (issue: ValidationIssue) => {
    const segments = (issue.instancePath ?? '').split('/').filter(Boolean);
    const missing = issue.params?.missingProperty;
    if (typeof missing === 'string') segments.push(missing);
    const extra = issue.params?.additionalProperty;
    if (typeof extra === 'string') segments.push(extra);
    return [context, ...segments].join('.');
  };
  const unions = new Map<string, string[]>();
  for (const issue of issues) {
    if (issue.keyword !== 'anyOf') continue;
    const at = issue.instancePath ?? '';
    const allowed = issues.filter((other) => other.keyword === 'const' && (other.instancePath ?? '') === at).map((other) => String(other.params?.allowedValue));
    if (allowed.length > 0) unions.set(at, allowed);
  }
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    const at = issue.instancePath ?? '';
    const path = pathOf(issue);
    const union = unions.get(at);
    const message = union ? `must be one of ${union.join(', ')}` : issueMessage(issue);
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message });
  }
  return out;
}

/** A field path as people say it: `role`, `the query parameter structure_id`, `slug in the path`. */
export function describeField(path: string): string {
  const [place, ...rest] = path.split('.');
  const name = rest.join('.');
  if (!name) return place === 'body' ? 'the body' : (place ?? 'the request');
  if (place === 'querystring') return `the query parameter ${name}`;
  if (place === 'params') return `${name} in the path`;
  if (place === 'headers') return `the header ${name}`;
  return name;
}

function summarize(errors: FieldError[]): string {
  if (errors.length === 0) return 'the request is invalid';
  const shown = errors.slice(0, 3).map((error) => `${describeField(error.path)} ${error.message}`);
  const more = errors.length > 3 ? `; and ${errors.length - 3} more problem(s)` : '';
  return `${shown.join('; ')}${more}`;
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
  if (unreachable(e)) {
    return { ...simple('unavailable', 'the database cannot be reached right now; nothing was changed, try again shortly'), headers: { 'retry-after': '1' }, unexpected: true };
  }
  return { ...simple('internal', 'an internal error occurred; it has been logged'), unexpected: true };
}

/** Network failures, and PostgreSQL's connection (08…) and shutdown (57P0…) classes: a backing service is away, not a bug. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P01', '57P02', '57P03']);

function unreachable(error: FastifyLikeError): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  return UNREACHABLE_CODES.has(code) || /^08\d{3}$/.test(code) || /^Connection terminated/.test(error.message ?? '');
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
