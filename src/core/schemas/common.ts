/**
 * Building blocks of the record schemas: identifier shapes of API.md §2 and two
 * constructors that keep response schemas cheap to serialise. A union in a response
 * schema (`anyOf`) makes fast-json-stringify run a validator on every value to pick a
 * branch; `type: ['string', 'null']` and `enum` are written without one.
 */
import { Type, type Static, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';
import { ID_MAX_LENGTH, ROLE_ID_PATTERN, SLUG_PATTERN } from '../util/patterns.js';

/**
 * A schema that also admits `null`, as `type: [<type>, 'null']` rather than a union, so
 * validators and serialisers handle it in one step. For schemas with a single `type`.
 *
 * @example
 * Nullable(Uuid) // { type: ['string', 'null'], format: 'uuid' } → string | null
 */
export function Nullable<T extends TSchema & { type: string }>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}

/**
 * A closed set of strings as `{type: 'string', enum: [...]}`: one schema node instead of
 * a union of literals, with the literal union as its static type.
 *
 * @example
 * StringEnum(['idle', 'working']) // Static: 'idle' | 'working'
 */
export function StringEnum<const V extends readonly string[]>(values: V, options: TSchemaOptions = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ ...options, type: 'string', enum: [...values] });
}

/** A UUID (v4 for ids org creates). */
export const Uuid = Type.String({ format: 'uuid', description: 'UUID v4' });
/** ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC, e.g. 2026-11-22T10:00:00.000Z' });
/** A node role id, `<team>-<role>`. */
export const RoleId = Type.String({ pattern: ROLE_ID_PATTERN, maxLength: ID_MAX_LENGTH, description: 'role id of the form <team>-<role>' });
/** A skill slug. */
export const Slug = Type.String({ pattern: SLUG_PATTERN, maxLength: ID_MAX_LENGTH, description: 'skill slug' });
/** An e-mail address. */
export const Email = Type.String({ format: 'email', maxLength: 254 });

/** `{run_id}`: the answer of the routes that start or stop a run without streaming it. */
export const RunRefSchema = Type.Object({ run_id: Uuid }, { title: 'RunRef' });
export type RunRef = Static<typeof RunRefSchema>;
