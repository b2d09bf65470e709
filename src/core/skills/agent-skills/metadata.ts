/**
 * org's own front matter members inside an Agent Skill's `metadata` mapping (which
 * holds strings only): `org.<member>` carries a string member as it is,
 * `org.<member>:json` carries any other value as JSON. Together they restore the org
 * front matter exactly, so export then import is the identity on org skills.
 */

/** Prefix of the metadata keys that carry org members. */
export const ORG_METADATA_PREFIX = 'org.';
const JSON_SUFFIX = ':json';

/** The metadata entries that carry `frontmatter` (keys sorted, so exports are stable). */
export function encodeOrgMetadata(frontmatter: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(frontmatter).sort()) {
    const value = frontmatter[key];
    if (value === undefined) continue;
    if (typeof value === 'string') out[`${ORG_METADATA_PREFIX}${key}`] = value;
    else out[`${ORG_METADATA_PREFIX}${key}${JSON_SUFFIX}`] = JSON.stringify(value);
  }
  return out;
}

/** True when a metadata mapping carries org members (the skill was exported by org). */
export function hasOrgMetadata(metadata: unknown): metadata is Record<string, unknown> {
  return isRecord(metadata) && Object.keys(metadata).some((key) => key.startsWith(ORG_METADATA_PREFIX));
}

/**
 * The org front matter carried by `metadata`, and the metadata entries that are not
 * org's. Throws an Error naming the key when a `:json` value does not parse.
 */
export function decodeOrgMetadata(metadata: Record<string, unknown>): { frontmatter: Record<string, unknown>; foreign: Record<string, string> } {
  const frontmatter: Record<string, unknown> = {};
  const foreign: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (!key.startsWith(ORG_METADATA_PREFIX)) {
      foreign[key] = String(value);
      continue;
    }
    const member = key.slice(ORG_METADATA_PREFIX.length);
    if (member.endsWith(JSON_SUFFIX)) {
      try {
        frontmatter[member.slice(0, -JSON_SUFFIX.length)] = JSON.parse(String(value));
      } catch {
        throw new Error(`metadata ${key} is not valid JSON`);
      }
    } else frontmatter[member] = String(value);
  }
  return { frontmatter, foreign };
}

/** True for plain objects. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
