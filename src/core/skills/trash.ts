/**
 * The recoverable deleted area, `<root>/.deleted/<slug>--<timestamp>.md`. The
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

/** A free path in the deleted area for `slug` at `when` (`suffix` `.replaced` for replaced versions). */
async function trashPath(root: string, slug: string, when: Date, suffix = ''): Promise<string> {
  const dir = join(root, DELETED_DIR);
  await mkdirSafe(dir);
  const existing = new Set((await readdirSafe(dir)).map((entry) => entry.name));
  const stamp = fileTimestamp(when);
  let name = `${slug}--${stamp}${suffix}.md`;
  for (let n = 2; existing.has(name); n++) name = `${slug}--${stamp}-${n}${suffix}.md`;
  return join(dir, name);
}

/** Moves a live skill file into the deleted area; returns the new path. */
export async function moveToTrash(root: string, slug: string, when: Date): Promise<string> {
  const target = await trashPath(root, slug, when);
  await renameSafe(join(root, `${slug}.md`), target);
  return target;
}

/** Keeps the text of a version an update is about to replace; returns its path. */
export async function keepReplaced(root: string, slug: string, text: string, when: Date): Promise<string> {
  const target = await trashPath(root, slug, when, '.replaced');
  await writeFileAtomicSafe(target, text);
  return target;
}

/** Every deleted file, newest first (regular files only); a linked `.deleted` is refused (409). */
export async function listTrash(root: string): Promise<TrashEntry[]> {
  let names: string[];
  try {
    names = (await readdirSafe(join(root, DELETED_DIR))).filter((entry) => entry.isFile()).map((entry) => entry.name);
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
      file: join(root, DELETED_DIR, name),
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

/** The deleted-skills listing of API.md §4. */
export async function listDeletedSkills(root: string, structureId?: string): Promise<DeletedSkill[]> {
  const out: DeletedSkill[] = [];
  for (const entry of await listTrash(root)) {
    const skill = await readTrashed(entry);
    // A structure-scoped skill is listed only for its own structure (like live ones).
    const scope = skill?.frontmatter.structure_id;
    if (scope !== undefined && scope !== structureId) continue;
    out.push({ slug: entry.slug, name: skill?.frontmatter.name ?? entry.slug, deleted_at: entry.deletedAt, reason: entry.replaced ? 'replaced' : 'deleted' });
  }
  return out;
}
