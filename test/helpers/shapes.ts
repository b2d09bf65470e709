/** Shapes the HTTP tests check responses against (API.md §2, §5). */

/** ISO 8601 UTC with milliseconds and `Z`. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A UUID v4. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Exactly the members of a node record. */
export const NODE_KEYS = ['container_url', 'created_at', 'id', 'label', 'parent_id', 'role_id', 'starting_context', 'state', 'x', 'y'];
