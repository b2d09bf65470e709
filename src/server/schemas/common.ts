/** Schemas shared by every route: identifiers, problem details, common shapes. */
import { Type } from 'typebox';
import { ID_MAX_LENGTH, ROLE_ID_PATTERN, SLUG_PATTERN } from '../../core/util/index.js';

/** A UUID. */
export const Uuid = Type.String({ format: 'uuid', description: 'UUID v4' });
/** ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z' });
/** A node role id, `<team>-<role>`. */
export const RoleId = Type.String({ pattern: ROLE_ID_PATTERN, maxLength: ID_MAX_LENGTH, description: 'role id of the form <team>-<role>' });
/** A skill slug. */
export const Slug = Type.String({ pattern: SLUG_PATTERN, maxLength: ID_MAX_LENGTH, description: 'skill slug' });
/** A collaborator role. */
export const RoleName = Type.Union([Type.Literal('viewer'), Type.Literal('operator'), Type.Literal('owner')]);
/** An e-mail address. */
export const Email = Type.String({ format: 'email', maxLength: 254 });

/** RFC 9457 problem details as produced by every error (API.md §2). */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { additionalProperties: true, description: 'RFC 9457 problem details' },
);

/** Problem responses for the given statuses, for route schemas. */
export function problems(...statuses: number[]): Record<number, typeof Problem> {
  return Object.fromEntries(statuses.map((status) => [status, Problem]));
}

/** Path parameters of structure routes. */
export const StructureParams = Type.Object({ structure_id: Uuid });
/** Path parameters of node routes. */
export const NodeParams = Type.Object({ structure_id: Uuid, role_id: RoleId });
/** An empty 204 response. */
export const NoContent = Type.Null({ description: 'No content' });
