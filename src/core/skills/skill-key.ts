/**
 * The identity of a skill and where its file lives. A skill is identified by its slug
 * and the structure it belongs to, if any (API.md §10):
 *
 * - an *instance skill* (no `structure_id`) is `<root>/<slug>.md`, the shared library;
 * - a *structure skill* is `<root>/<structure_id>/<slug>.md`, one folder per structure,
 *   so two structures may each have a skill `foo` and neither can learn of the other's.
 *
 * Each scope folder (the root, or a structure's folder) has the same layout: skill files,
 * a skill's own files in `<slug>/`, and the deleted area `.deleted/`. The key string
 * (`<slug>` or `<structure_id>/<slug>`) is the skill's id in the catalog and the index,
 * and with `.md` appended its path relative to the root.
 */
import { join } from 'node:path';
import { isValidSlug } from './slug.js';

/** A skill's identity: its slug, and its structure for a structure skill. */
export interface SkillKey {
  slug: string;
  /** Absent for an instance skill. */
  structureId?: string;
}

/** A structure id as org makes them (a lowercase UUID): the only folder names that hold a structure's skills. */
const STRUCTURE_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True when `name` (an entry of the skills folder) is the folder of a structure's skills. */
export function isStructureFolderName(name: string): boolean {
  return STRUCTURE_FOLDER.test(name);
}

/**
 * True when a slug is shaped like a structure id. Such a slug is refused for new
 * instance skills: the folder of its own files (`<root>/<slug>/`) would be taken for a
 * structure's folder.
 */
export function isStructureShapedSlug(slug: string): boolean {
  return STRUCTURE_FOLDER.test(slug);
}

/** The key of a skill: `<slug>` for an instance skill, `<structure_id>/<slug>` for a structure's. */
export function keyString(key: SkillKey): string {
  return key.structureId === undefined ? key.slug : `${key.structureId}/${key.slug}`;
}

/** The key of `slug` in the scope of `structureId` (the instance library when undefined). */
export function keyOf(slug: string, structureId?: string): string {
  return structureId === undefined ? slug : `${structureId}/${slug}`;
}

/** A key string back as its parts (the string must come from {@link keyString}). */
export function parseKey(key: string): SkillKey {
  const at = key.indexOf('/');
  return at < 0 ? { slug: key } : { structureId: key.slice(0, at), slug: key.slice(at + 1) };
}

/** The slug of a key string. */
export function slugOfKey(key: string): string {
  return key.slice(key.indexOf('/') + 1);
}

/** The structure of a key string (undefined for an instance skill). */
export function structureOfKey(key: string): string | undefined {
  const at = key.indexOf('/');
  return at < 0 ? undefined : key.slice(0, at);
}

/** The folder holding a scope's skills: the root for the instance library, else the structure's folder. */
export function scopeDir(root: string, structureId?: string): string {
  return structureId === undefined ? root : join(root, structureId);
}

/** The path of a skill's file relative to the root, `/`-separated (`foo.md`, `<structure_id>/foo.md`). */
export function relativeFile(key: SkillKey | string): string {
  return `${typeof key === 'string' ? key : keyString(key)}.md`;
}

/** The absolute path of a skill's file. */
export function skillFile(root: string, key: SkillKey): string {
  return join(scopeDir(root, key.structureId), `${key.slug}.md`);
}

/** How a path relative to the root reads as a skill file. */
export type FileKey =
  /** A skill file: its key. */
  | { kind: 'skill'; key: SkillKey }
  /** A `.md` file where a skill file would be whose name is not a valid slug (a problem of its scope). */
  | { kind: 'bad-name'; structureId?: string }
  /** Anything else (a skill's own files, the deleted area, hidden or temp files): not a skill. */
  | { kind: 'other' };

/** True for names a scope folder holds skills in: `*.md`, not hidden, not editor temp files. */
export function isSkillFileName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.') && !name.startsWith('~') && name.length > 3;
}

/**
 * Reads a path relative to the root (`/`-separated) as a skill file: `<slug>.md` at the
 * root, or `<structure_id>/<slug>.md` in a structure's folder.
 */
export function fileKey(relative: string): FileKey {
  const parts = relative.split('/');
  if (parts.length > 2) return { kind: 'other' };
  const name = parts[parts.length - 1] as string;
  const structureId = parts.length === 2 ? (parts[0] as string) : undefined;
  if (structureId !== undefined && !isStructureFolderName(structureId)) return { kind: 'other' };
  if (!isSkillFileName(name)) return { kind: 'other' };
  const slug = name.slice(0, -3);
  if (!isValidSlug(slug)) return structureId === undefined ? { kind: 'bad-name' } : { kind: 'bad-name', structureId };
  return { kind: 'skill', key: structureId === undefined ? { slug } : { slug, structureId } };
}
