/**
 * The recoverable deleted area of a scope folder, `<dir>/.deleted/<slug>--<timestamp>.md`
 * (the instance library's `<root>/.deleted/`, a structure's `<root>/<structure_id>/.deleted/`:
 * see `skill-key.ts`). The
 * timestamp is the deletion time in ISO 8601 with `:` replaced by `-`, so it is a safe
 * file name everywhere and sorts in time order. A version that an update replaced is
 * kept here too, as `<slug>--<timestamp>.replaced.md`, so no write through the API ever
 * loses a skill's previous text. Neither the area nor a file in it is ever reached
 * through a symbolic link: a linked `.deleted` would move deleted skills out of the
 * home, so it is refused (409) and reported as a load problem.
 */
import { join } from 'node:path';
import { isLinkRefused, mkdirSafe, readFileSafe, readdirSafe, renameSafe, writeFileAtomicSafe } from '../storage/index.js';
import { parseSkillText } from './file-format.js';
import { scopeDir } from './skill-key.js';
import { isValidSlug } from './slug.js';
import type { DeletedSkill, Skill } from './types.js';

/** Name of the deleted area inside the skills folder. */
export const DELETED_DIR = '.deleted';
/** The load problem of a `.deleted` that is a symbolic link. */
export const TRASH_LINK_PROBLEM = 'is a symbolic link; deleting and restoring skills is refused until it is a real folder';
const NAME = /^([a-z0-9]+(?:-[a-z0-9]+)*)--(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z)(?:-(\d+))?(\.replaced)?\.md$/;

/** One file in the deleted area. */
export interface TrashEntry {
  slug: string;
  deletedAt: string;
  file: string;
  /** True for a version an update replaced (the skill itself may still be live). */
  replaced: boolean;
}

/** `2024-05-01T10:20:30.123Z` → `2024-05-01T10-20-30.123Z`. */
export function fileTimestamp(date: Date): string {
  return date.toISOString().replace(/:/g, '-');
}

function isoFromFileTimestamp(stamp: string): string {
  return stamp.replace(/T(\d{2})-(\d{2})-(\d{2})/, 'T$1:$2:$3');
}

/** A free path in the deleted area of scope folder `scope` for `slug` at `when` (`suffix` `.replaced` for replaced versions). */
async function trashPath(scope: string, slug: string, when: Date, suffix = ''): Promise<string> {
  const dir = join(scope, DELETED_DIR);
  await mkdirSafe(dir);
  const existing = new Set((await readdirSafe(dir)).map((entry) => entry.name));
  const stamp = fileTimestamp(when);
  let name = `${slug}--${stamp}${suffix}.md`;
  for (let n = 2; existing.has(name); n++) name = `${slug}--${stamp}-${n}${suffix}.md`;
  return join(dir, name);
}

/** Moves a live skill file of scope folder `scope` into its deleted area; returns the new path. */
export async function moveToTrash(scope: string, slug: string, when: Date): Promise<string> {
  const target = await trashPath(scope, slug, when);
  await renameSafe(join(scope, `${slug}.md`), target);
  return target;
}

/** Keeps the text of a version an update is about to replace, in the deleted area of scope folder `scope`; returns its path. */
export async function keepReplaced(scope: string, slug: string, text: string, when: Date): Promise<string> {
  const target = await trashPath(scope, slug, when, '.replaced');
  await writeFileAtomicSafe(target, text);
  return target;
}

/** Every deleted file of scope folder `scope`, newest first (regular files only); a linked `.deleted` is refused (409). */
export async function listTrash(scope: string): Promise<TrashEntry[]> {
  let names: string[];
  try {
    names = (await readdirSafe(join(scope, DELETED_DIR))).filter((entry) => entry.isFile()).map((entry) => entry.name);
  } catch (error) {
    if (isLinkRefused(error)) throw error;
    return [];
  }
  const entries: (TrashEntry & { n: number })[] = [];
  for (const name of names) {
    const match = NAME.exec(name);
    if (!match || !isValidSlug(match[1])) continue;
    entries.push({
      slug: match[1] as string,
      deletedAt: isoFromFileTimestamp(match[2] as string),
      file: join(scope, DELETED_DIR, name),
      replaced: match[4] !== undefined,
      n: Number(match[3] ?? 1),
    });
  }
  entries.sort((a, b) => (a.deletedAt === b.deletedAt ? b.n - a.n : a.deletedAt < b.deletedAt ? 1 : -1));
  return entries.map(({ slug, deletedAt, file, replaced }) => ({ slug, deletedAt, file, replaced }));
}

/** Reads a deleted file's skill (undefined when it no longer parses). */
export async function readTrashed(entry: TrashEntry): Promise<Skill | undefined> {
  try {
    const parsed = parseSkillText(entry.slug, await readFileSafe(entry.file, 'utf8'), {
      learned_by: 'user',
      learned_at: entry.deletedAt,
      category: 'general',
      difficulty: 'medium',
    });
    return parsed.ok ? parsed.skill : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The deleted-skills listing of API.md §4 as a structure sees it: its own deleted area
 * and the instance library's, newest first (without a structure, the instance library's
 * only). Another structure's deleted skills are never listed.
 */
export async function listDeletedSkills(root: string, structureId?: string): Promise<DeletedSkill[]> {
  const out: (DeletedSkill & { at: number })[] = [];
  const collect = async (scope: string | undefined): Promise<void> => {
    let n = 0;
    for (const entry of await listTrash(scopeDir(root, scope))) {
      const skill = await readTrashed(entry);
      out.push({
        slug: entry.slug,
        name: skill?.frontmatter.name ?? entry.slug,
        deleted_at: entry.deletedAt,
        reason: entry.replaced ? 'replaced' : 'deleted',
        ...(scope !== undefined ? { structure_id: scope } : {}),
        at: n++,
      });
    }
  };
  if (structureId !== undefined) await collect(structureId);
  await collect(undefined);
  // Newest first across both areas; within one area, the order listTrash gave.
  out.sort((a, b) => (a.deleted_at === b.deleted_at ? (a.structure_id === b.structure_id ? a.at - b.at : a.structure_id === undefined ? 1 : -1) : a.deleted_at < b.deleted_at ? 1 : -1));
  return out.map(({ at: _at, ...entry }) => entry);
}
