/**
 * Versions of skills for optimistic concurrency (RFC 9110 §8.8.3, §13.1.1): a skill's
 * entity tag is a strong validator over its stored record (front matter and body), so
 * two editors who read the same version get the same tag, and a write conditioned on a
 * tag (`If-Match`) lands only while the skill is still that version.
 */
import { createHash } from 'node:crypto';
import type { Skill } from './types.js';

/** The quoted strong entity tag of a skill's current version. */
export function skillETag(skill: Pick<Skill, 'frontmatter' | 'body'>): string {
  const digest = createHash('sha256').update(JSON.stringify([skill.frontmatter, skill.body])).digest('base64url');
  return `"${digest.slice(0, 32)}"`;
}

/**
 * The entity tags of an `If-Match` header value (`*`, or a comma-separated list of
 * quoted tags). Weak tags (`W/"…"`) are dropped: If-Match compares strongly, so they
 * never match. Returns undefined for an absent header.
 */
export function parseIfMatch(header: string | undefined): string[] | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return ['*'];
  return [...value.matchAll(/(W\/)?("[^"]*")/g)].filter((match) => match[1] === undefined).map((match) => match[2]!);
}

/** True when a skill's current version satisfies an If-Match list (`*` matches any existing skill). */
export function matchesVersion(skill: Pick<Skill, 'frontmatter' | 'body'> | undefined, tags: readonly string[]): boolean {
  if (!skill) return false;
  return tags.includes('*') || tags.includes(skillETag(skill));
}
