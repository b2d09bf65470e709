/**
 * RFC 9457 problem details, the body of every error answer (API.md §2), served as
 * `application/problem+json`. Produced once by the server's error mapping; read by the
 * client, the CLI and the web UI.
 */
import { Type, type Static } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';
import { StringEnum } from './common.js';

/** The stable error codes, in the order of API.md §2. */
const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** One field-level validation problem: where (`body.name`) and what. */
export const FieldErrorSchema = Type.Object(
  {
    path: Type.String({ description: 'where, e.g. body.frontmatter.status or query.limit' }),
    message: Type.String({ description: 'what is wrong, in words' }),
  },
  { title: 'FieldError' },
);
export type FieldError = Static<typeof FieldErrorSchema>;

/** Problem details; members beyond the listed ones (e.g. `run_id` of a 504) may appear. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'urn:org:problem:<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: StringEnum(ERROR_CODES),
    errors: Type.Optional(Type.Array(FieldErrorSchema, { description: 'field errors of a validation failure' })),
    instance: Type.Optional(Type.String({ description: 'urn:org:request:<request id>: this occurrence, by the X-Request-Id of its request' })),
  },
  { title: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

/** A problem-details body. */
export type Problem = Static<typeof ProblemSchema> & { [extra: string]: unknown };
