/**
 * The one error hierarchy of org. Every failure that reaches a user is an `OrgError`
 * with a stable `code`; the server maps it once to RFC 9457 problem details and the
 * CLI maps it once to an exit code. Nothing else is thrown at a boundary.
 */
import type { FieldError } from './schemas/problem.js';

/** Stable error codes of API.md §2, each with its HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  egress_refused: 400,
  unauthorized: 401,
  forbidden: 403,
  instance_skill: 403,
  not_found: 404,
  request_timeout: 408,
  conflict: 409,
  already_exists: 409,
  delegation_refused: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  unavailable: 503,
  timeout: 504,
  insufficient_storage: 507,
} as const;

/** One of the error codes of API.md §2. */
export type ErrorCode = keyof typeof ERROR_STATUS;

export type { FieldError } from './schemas/problem.js';

/** Titles shown in problem details, one per code. */
export const ERROR_TITLE: Record<ErrorCode, string> = {
  invalid_request: 'Invalid request',
  egress_refused: 'Outbound address refused',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  instance_skill: 'Instance skill',
  not_found: 'Not found',
  request_timeout: 'Request timeout',
  conflict: 'Conflict',
  already_exists: 'Already exists',
  delegation_refused: 'Delegation refused',
  gone: 'Gone',
  precondition_failed: 'Precondition failed',
  payload_too_large: 'Payload too large',
  uri_too_long: 'URI too long',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  headers_too_large: 'Request header fields too large',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
  timeout: 'Timed out',
  insufficient_storage: 'Insufficient storage',
};

const EXIT_CODE: Record<ErrorCode, number> = {
  invalid_request: 2,
  egress_refused: 2,
  unauthorized: 3,
  forbidden: 3,
  instance_skill: 3,
  not_found: 4,
  request_timeout: 7,
  conflict: 5,
  already_exists: 5,
  delegation_refused: 5,
  gone: 5,
  precondition_failed: 5,
  payload_too_large: 2,
  uri_too_long: 2,
  unsupported_media_type: 2,
  rate_limited: 6,
  headers_too_large: 2,
  internal: 1,
  unavailable: 7,
  timeout: 8,
  insufficient_storage: 9,
};

/** Options of an OrgError beyond its code and message. */
export interface OrgErrorOptions {
  /** Field errors of a validation failure. */
  errors?: FieldError[];
  /** Extra members copied into the problem details (for example `run_id`). */
  extra?: Record<string, unknown>;
  /** Seconds to wait before retrying (429). */
  retryAfter?: number;
  cause?: unknown;
}

/**
 * Marks OrgErrors by a registry symbol, so that {@link isOrgError} recognises one made by
 * another copy of this module (a second install of org, a bundled client) where
 * `instanceof` would not.
 */
const ORG_ERROR = Symbol.for('org.OrgError');

/**
 * An expected failure with a stable code. `message` is safe to show to a client:
 * it never carries a stack, a file path or a secret.
 */
export class OrgError extends Error {
  readonly code: ErrorCode;
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly retryAfter?: number;
  readonly [ORG_ERROR] = true;

  constructor(code: ErrorCode, message: string, options: OrgErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'OrgError';
    this.code = code;
    if (options.errors) this.errors = options.errors;
    if (options.extra) this.extra = options.extra;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
  }

  /** The HTTP status of this error's code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The process exit code the CLI uses for this error. */
  get exitCode(): number {
    return EXIT_CODE[this.code];
  }
}

/** 400 with optional field errors. */
export const invalid = (message: string, errors?: FieldError[]): OrgError =>
  new OrgError('invalid_request', message, errors ? { errors } : {});
/** 404 for a resource that does not exist or must not be revealed. */
export const notFound = (message: string): OrgError => new OrgError('not_found', message);
/** 409 for a state conflict (duplicate, not empty, already live). */
export const conflict = (message: string): OrgError => new OrgError('conflict', message);
/**
 * 409 `already_exists`: a create-only write (`If-None-Match: *`) found the resource
 * there. `extra` names it (for example `{slug}`), so a client can offer to open it.
 */
export const alreadyExists = (message: string, extra?: Record<string, unknown>): OrgError =>
  new OrgError('already_exists', message, extra ? { extra } : {});
/** 403 for a member whose role is too low. */
export const forbidden = (message: string): OrgError => new OrgError('forbidden', message);
/**
 * 403 `instance_skill`: a structure tried to change a skill of the shared instance
 * library, which only the instance administrator changes. The message says to fork it.
 */
export const instanceSkill = (slug: string): OrgError =>
  new OrgError(
    'instance_skill',
    `${slug} is an instance skill, shared by every structure on this server: only the instance administrator changes it. Fork it to get this structure's own copy, which you can change (org skills fork ${slug}, or POST /api/org/knowledge/skills/${slug}/fork)`,
    { extra: { slug } },
  );
/** 401 for a missing, unknown or revoked token. */
export const unauthorized = (message: string): OrgError => new OrgError('unauthorized', message);
/** 410 for something that existed and is no longer usable. */
export const gone = (message: string): OrgError => new OrgError('gone', message);

/**
 * 412: a conditional write (`If-Match`) found another version than the one the client
 * read; `extra` carries the current version (`etag`) when there is one.
 */
export const preconditionFailed = (message: string, extra?: Record<string, unknown>): OrgError =>
  new OrgError('precondition_failed', message, extra ? { extra } : {});

/** True when `value` is an OrgError, also one made by another copy of this module (see `ORG_ERROR`). */
export function isOrgError(value: unknown): value is OrgError {
  return value instanceof OrgError || (typeof value === 'object' && value !== null && (value as { [ORG_ERROR]?: unknown })[ORG_ERROR] === true);
}
