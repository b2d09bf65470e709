/** What route schemas share beyond the records of core/schemas: path parameters and error answers. */
import { Type } from 'typebox';
import { ERROR_STATUS, ERROR_TITLE, type ErrorCode } from '../../core/errors.js';
import { ProblemSchema, RoleId, Uuid } from '../../core/schemas/index.js';

/** The title of each status: its generic code's (the first listed: 400 is `invalid_request`, 409 `conflict`). */
const TITLE_OF_STATUS = new Map<number, string>(
  Object.entries(ERROR_STATUS)
    .reverse()
    .map(([code, status]) => [status, ERROR_TITLE[code as ErrorCode]]),
);

/** An error answer as documented: problem details, served as `application/problem+json`. */
function problemResponse(status: number) {
  return {
    description: `${TITLE_OF_STATUS.get(status) ?? 'Error'}: problem details`,
    content: { 'application/problem+json': { schema: ProblemSchema } },
  };
}

/** Problem responses for the given statuses, for route schemas. */
export function problems(...statuses: number[]): Record<number, ReturnType<typeof problemResponse>> {
  return Object.fromEntries(statuses.map((status) => [status, problemResponse(status)]));
}

/** Path parameters of structure routes. */
export const StructureParams = Type.Object({ structure_id: Uuid });
/** Path parameters of node routes. */
export const NodeParams = Type.Object({ structure_id: Uuid, role_id: RoleId });
/** An empty 204 response. */
export const NoContent = Type.Null({ description: 'No content' });
/** `?structure_id=`: the structure a write acts from (skill delete and restore). */
export const StructureQuery = Type.Object({ structure_id: Uuid });
