/**
 * The move of a home from the layout of earlier versions, where a structure's skills lay
 * in the root beside the instance library (`skills/<slug>.md` carrying `structure_id`),
 * to one folder per structure (`skills/<structure_id>/<slug>.md`, see `skill-key.ts`).
 *
 * Run once per home before the library loads: each such file, its own files
 * (`<slug>/`) and its deleted versions (`.deleted/<slug>--….md`) move into the
 * structure's folder, each by one rename (the skill file last, so a start cut short
 * finishes the move the next time). In a git work tree the moves of tracked files are
 * staged as `git mv` stages them (the history follows the file), and with `commit` (or a
 * skills remote) committed.
 * A file whose place in the structure's folder is taken stays where it is, and the load
 * lists it as a problem of that structure. A marker in the state folder records that the
 * move was made; files that arrive in the old place later (a pull from an older instance)
 * are listed as problems saying where they belong.
 */
import { closeSync, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { errorFields, type Log } from '../util/log.js';
import { O_NOFOLLOW, READ_FLAGS, lstatOrUndefined, mkdirSafe, readJson, readdirSafe, renameSafe, writeJsonAtomic } from '../storage/index.js';
import { parseSkillText } from './file-format.js';
import { commitSkillChange, runGit, workTreeRoot } from './git.js';
import type { SkillRemote } from './remote.js';
import { isSkillFileName } from './skill-key.js';
import { isValidSlug } from './slug.js';
import { DELETED_DIR, listTrash, readTrashed } from './trash.js';

/** The layout this version keeps skills in (1: all in the root; 2: one folder per structure). */
export const SKILLS_LAYOUT = 2;

/** What a migration did. */
export interface LayoutMigration {
  /** Paths relative to the skills folder, from → to. */
  moved: { from: string; to: string }[];
  /** Files left in place because their new place was taken. */
  kept: string[];
}

/** Options of {@link migrateLayout}. */
export interface LayoutOptions {
  root: string;
  stateDir: string;
  log: Log;
  /** Commit the moves with git (the store's `commit` option). */
  commit: boolean;
  /** The skills remote: the moves are published to it. */
  remote?: SkillRemote;
}

/** The marker of a home whose skills are in the current layout. */
function markerPath(stateDir: string): string {
  return join(stateDir, 'skills-layout.json');
}

const DEFAULTS = { learned_by: 'user', learned_at: new Date(0).toISOString(), category: 'general', difficulty: 'medium' } as const;

/** Root files read synchronously between two yields to the event loop (as the load does). */
const SLICE = 256;

/**
 * The structure a skill text belongs to, when it parses and names one. A text that holds
 * neither `structure_id` nor a backslash (YAML's only way to spell a key otherwise) cannot
 * name one, so most texts are never parsed.
 */
function structureOf(slug: string, text: string): string | undefined {
  if (!text.includes('structure_id') && !text.includes('\\')) return undefined;
  const parsed = parseSkillText(slug, text, DEFAULTS);
  return parsed.ok ? parsed.skill.frontmatter.structure_id : undefined;
}

/**
 * A root file's text, never through a link; undefined when it cannot be read. Synchronous
 * (one open, fstat, read and close): a library of thousands of files is read several
 * times faster than through the thread pool, and the caller yields between slices.
 */
function readRegularSync(file: string): string | undefined {
  let fd: number;
  try {
    if (O_NOFOLLOW === 0 && !lstatSync(file).isFile()) return undefined;
    fd = openSync(file, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The root's skill files that belong to a structure (old layout), with the structure's id. */
async function structureFiles(root: string): Promise<{ name: string; slug: string; structureId: string }[]> {
  const names: string[] = [];
  for (const entry of await readdirSafe(root)) {
    if (entry.isFile() && isSkillFileName(entry.name) && isValidSlug(entry.name.slice(0, -3))) names.push(entry.name);
  }
  const found: { name: string; slug: string; structureId: string }[] = [];
  for (let i = 0; i < names.length; i += SLICE) {
    if (i > 0) await yieldToEventLoop();
    for (const name of names.slice(i, i + SLICE)) {
      const slug = name.slice(0, -3);
      const text = readRegularSync(join(root, name));
      const structureId = text === undefined ? undefined : structureOf(slug, text);
      if (structureId !== undefined) found.push({ name, slug, structureId });
    }
  }
  return found;
}

/** Moves the structure skills of the old layout into their folders; does nothing once the marker says it was done. */
export async function migrateLayout(options: LayoutOptions): Promise<LayoutMigration> {
  const done: LayoutMigration = { moved: [], kept: [] };
  // An unreadable marker means "not known to be done": the move finds nothing to do then.
  const marker = await readJson<{ layout?: unknown }>(markerPath(options.stateDir), {}).catch(() => ({ layout: undefined }));
  if (typeof marker.layout === 'number' && marker.layout >= SKILLS_LAYOUT) return done;
  const { root } = options;
  const top = await workTreeRoot(root);
  // Paths (absolute) to stage: both ends of each move of a file git tracks.
  const staged: string[] = [];
  const move = async (from: string, to: string): Promise<boolean> => {
    if (await lstatOrUndefined(join(root, to))) return false;
    await mkdirSafe(join(root, to, '..'));
    const known = top !== undefined && (await tracked(top, join(root, from)));
    await renameSafe(join(root, from), join(root, to));
    if (known) staged.push(join(root, from), join(root, to));
    done.moved.push({ from, to });
    return true;
  };

  for (const { name, slug, structureId } of await structureFiles(root)) {
    // Its own files first: the skill file's move is the one that completes it.
    const files = await lstatOrUndefined(join(root, slug));
    if (files?.isDirectory()) await move(slug, `${structureId}/${slug}`);
    if (!(await move(name, `${structureId}/${name}`))) done.kept.push(name);
  }
  for (const trashed of await listTrash(root).catch(() => [])) {
    const structureId = (await readTrashed(trashed))?.frontmatter.structure_id;
    if (structureId === undefined) continue;
    const name = relative(join(root, DELETED_DIR), trashed.file);
    await move(`${DELETED_DIR}/${name}`, `${structureId}/${DELETED_DIR}/${name}`);
  }

  for (const { from, to } of done.moved) options.log('info', 'moved a structure skill into its structure’s folder', { from: `skills/${from}`, to: `skills/${to}` });
  for (const file of done.kept) options.log('warn', 'a structure skill stays in the root: its place in the structure’s folder is taken', { file: `skills/${file}` });
  if (top && staged.length > 0) await stageMoves(options, top, staged, done);
  await writeJsonAtomic(markerPath(options.stateDir), { layout: SKILLS_LAYOUT, migrated_at: new Date().toISOString(), moved: done.moved.length });
  return done;
}

/** True when git tracks `path` (a file, or a folder holding tracked files). */
async function tracked(top: string, path: string): Promise<boolean> {
  try {
    return (await runGit(top, ['ls-files', '--', relative(top, path)])).trim() !== '';
  } catch {
    return false;
  }
}

/**
 * Stages the moves of tracked files as `git mv` would (each as a removal and an addition,
 * which git shows as a rename), and commits or publishes them when the store commits its
 * writes.
 */
async function stageMoves(options: LayoutOptions, top: string, files: string[], done: LayoutMigration): Promise<void> {
  const message = `skills: ${done.moved.length} structure skill file${done.moved.length === 1 ? '' : 's'} moved into their structures' folders`;
  try {
    if (options.remote) await options.remote.publish(files, message);
    else if (options.commit) await commitSkillChange(options.root, files, message);
    else await runGit(top, ['add', '-A', '--', ...files.map((file) => relative(top, file))]);
  } catch (error) {
    // The files are in their new places either way; the commit is the user's to make then.
    options.log('warn', 'committing the move of structure skills into their folders failed', errorFields(error));
  }
}
