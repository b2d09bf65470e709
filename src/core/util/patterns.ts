/** Identifier shapes of API.md §2: the one declaration of each, used by route schemas and core checks alike. */

/** A skill slug: lowercase words joined by single hyphens, at most 64 characters. */
export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
/** A node role id `<team>-<role>`: at least two lowercase words, at most 64 characters. */
export const ROLE_ID_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)+$';
/** Maximum length of slugs and role ids. */
export const ID_MAX_LENGTH = 64;

/** True when `value` is a valid role id. */
export function isRoleId(value: string): boolean {
  return value.length <= ID_MAX_LENGTH && new RegExp(ROLE_ID_PATTERN).test(value);
}
