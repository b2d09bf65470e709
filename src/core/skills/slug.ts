/**
 * Slug rules of API.md §2: lowercase words joined by single hyphens, at most 64
 * characters. A valid slug can never contain a path separator or `..`, which is what
 * keeps skill file names inside the skills folder.
 */
import { invalid } from '../errors.js';
import { ID_MAX_LENGTH, SLUG_PATTERN as SLUG_SOURCE } from '../util/patterns.js';

/** The slug pattern of API.md §2 (compiled from the one declaration in util/patterns.ts). */
export const SLUG_PATTERN = new RegExp(SLUG_SOURCE);
/** Longest slug accepted. */
export const SLUG_MAX_LENGTH = ID_MAX_LENGTH;

/** True when `value` is a valid skill slug. */
export function isValidSlug(value: unknown): value is string {
  return typeof value === 'string' && value.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(value);
}

/**
 * Throws a 400 `OrgError` unless `value` is a valid slug.
 * @param path where the slug came from, for the field error (`slug`, `params.slug`)
 */
export function assertSlug(value: unknown, path = 'slug'): asserts value is string {
  if (isValidSlug(value)) return;
  throw invalid('invalid slug', [
    { path, message: `must match ${SLUG_PATTERN.source} and be at most ${SLUG_MAX_LENGTH} characters` },
  ]);
}
