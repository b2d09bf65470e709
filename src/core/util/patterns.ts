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

/** RFC 9110 `token`: the characters a media type's names and parameter names are made of. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** RFC 9110 `quoted-string`, ASCII only (no obs-text): no control character but tab. */
const QUOTED = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t -~])*"';

/**
 * A media type as RFC 9110 §8.3.1 writes it: `type/subtype` and `; name=value`
 * parameters (token or quoted string). Nothing else — no CR, LF or other control
 * character — so a value that passes can always be sent back as a `Content-Type`.
 */
export const MEDIA_TYPE_PATTERN = `^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*$`;

/** Longest media type accepted (API.md §6 attachments). */
export const MEDIA_TYPE_MAX_LENGTH = 255;

const MEDIA_TYPE = new RegExp(MEDIA_TYPE_PATTERN);

/** True when `value` is a media type (see {@link MEDIA_TYPE_PATTERN}). */
export function isMediaType(value: string): boolean {
  return value.length <= MEDIA_TYPE_MAX_LENGTH && MEDIA_TYPE.test(value);
}

/**
 * The media type to keep or serve for `value`: itself when it is one, else
 * `application/octet-stream` (what a file of unknown type is; never sniffed as anything).
 */
export function mediaTypeOr(value: string | undefined | null): string {
  return typeof value === 'string' && isMediaType(value) ? value : 'application/octet-stream';
}
