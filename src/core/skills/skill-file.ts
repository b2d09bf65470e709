/**
 * Reading one skill file from the skills folder: stat, read, parse. Never throws for
 * a bad file; returns what went wrong instead, in words safe to show. A skill file is
 * never read through a symbolic link (`skills/` is tracked in git, and a committed link
 * could point anywhere): a link is a problem, reported like a file that does not parse.
 */
import { closeSync, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { O_NOFOLLOW, READ_FLAGS, isLinkRefused, readFileSafe } from '../storage/index.js';
import { parseSkillText } from './file-format.js';
import type { FrontmatterDefaults } from './frontmatter.js';
import { lineOfMember } from './front-matter-source.js';
import { skillFile, type SkillKey } from './skill-key.js';
import type { Skill } from './types.js';

/** Size and modification time: what decides whether a file must be read again. */
export interface FileSignature {
  mtimeMs: number;
  size: number;
}

/** Outcome of {@link readSkillFile}. */
export type ReadOutcome =
  | { kind: 'skill'; skill: Skill; signature: FileSignature }
  | {
      kind: 'problem';
      message: string;
      signature: FileSignature;
      link?: true;
      line?: number;
      /** The structure the problem concerns when the file names another scope than its folder's (a structure skill left in the root). */
      structureId?: string;
    }
  | { kind: 'missing' };

/** The problem message of a skill file that is a symbolic link. */
export const LINK_PROBLEM = 'is a symbolic link; org never follows links in the skills folder (replace it with a regular file)';

/** The path of a skill's file (the slug must be valid). */
export function skillPath(root: string, key: SkillKey): string {
  return skillFile(root, key);
}

/** Stats a file without following a link; undefined when it does not exist or is not a regular file. */
export async function signatureOf(file: string): Promise<FileSignature | undefined> {
  try {
    const info = await lstat(file);
    return info.isFile() ? { mtimeMs: info.mtimeMs, size: info.size } : undefined;
  } catch {
    return undefined;
  }
}

/** The signature of a link itself (what identifies this version of the problem). */
function linkSignature(file: string): FileSignature | undefined {
  const info = lstatSync(file, { throwIfNoEntry: false });
  return info?.isSymbolicLink() ? { mtimeMs: info.mtimeMs, size: info.size } : undefined;
}

/** The outcome for a file that turned out to be a link (or vanished meanwhile). */
function linkOutcome(file: string): ReadOutcome {
  const signature = linkSignature(file);
  return signature ? { kind: 'problem', message: LINK_PROBLEM, signature, link: true } : { kind: 'missing' };
}

/** Reads and parses a skill's file (`<root>/[<structure_id>/]<slug>.md`); absent optional members get file-based defaults. */
export async function readSkillFile(root: string, key: SkillKey): Promise<ReadOutcome> {
  const file = skillPath(root, key);
  const entry = await lstat(file).catch(() => undefined);
  if (!entry) return { kind: 'missing' };
  if (entry.isSymbolicLink()) return linkOutcome(file);
  if (!entry.isFile()) return { kind: 'missing' };
  const signature = { mtimeMs: entry.mtimeMs, size: entry.size };
  let text: string;
  try {
    text = await readFileSafe(file, 'utf8');
  } catch (error) {
    if (isLinkRefused(error)) return linkOutcome(file);
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'problem', message: 'file cannot be read', signature };
  }
  return parseFile(key, text, signature);
}

/**
 * The synchronous twin of {@link readSkillFile} for bulk loads, one open file handle
 * per file (open, fstat, read, close): thousands of files load several times faster
 * than through the thread pool. Callers read in slices and yield between them.
 * `known` skips the read when the file still has that signature.
 */
export function readSkillFileSync(root: string, key: SkillKey, known?: FileSignature): ReadOutcome | 'unchanged' {
  const file = skillPath(root, key);
  if (O_NOFOLLOW === 0 && linkSignature(file)) return linkOutcome(file);
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') {
      const signature = linkSignature(file);
      if (signature && known && known.mtimeMs === signature.mtimeMs && known.size === signature.size) return 'unchanged';
      return linkOutcome(file);
    }
    return { kind: 'missing' };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { kind: 'missing' };
    const signature = { mtimeMs: info.mtimeMs, size: info.size };
    if (known && known.mtimeMs === signature.mtimeMs && known.size === signature.size) return 'unchanged';
    let text: string;
    try {
      text = readFileSync(fd, 'utf8');
    } catch {
      return { kind: 'problem', message: 'file cannot be read', signature };
    }
    return parseFile(key, text, signature);
  } finally {
    closeSync(fd);
  }
}

/**
 * The defaults of a skill file's missing members. A file that does not say when its skill
 * was learned has no `learned_at`: its modification time would change on every save.
 */
function fileDefaults(): FrontmatterDefaults {
  return { learned_by: 'user', category: 'general', difficulty: 'medium' };
}

function parseFile(key: SkillKey, text: string, signature: FileSignature): ReadOutcome {
  const parsed = parseSkillText(key.slug, text, fileDefaults());
  if (!parsed.ok) return { kind: 'problem', message: parsed.message, signature, ...(parsed.line ? { line: parsed.line } : {}) };
  const declared = parsed.skill.frontmatter.structure_id;
  const misplaced = placementProblem(key, declared);
  if (misplaced) {
    const line = lineOfMember(text, 'structure_id');
    const owner = key.structureId ?? declared;
    return { kind: 'problem', message: misplaced, signature, ...(line ? { line } : {}), ...(owner !== undefined ? { structureId: owner } : {}) };
  }
  return { kind: 'skill', skill: parsed.skill, signature };
}

/**
 * Why a file's `structure_id` does not fit the folder it is in, or undefined when it does:
 * a structure's folder holds that structure's skills only, and the root holds instance
 * skills only (a structure skill there is moved into its folder at the next start).
 */
export function placementProblem(key: SkillKey, structureId: string | undefined): string | undefined {
  if (key.structureId !== undefined && structureId !== key.structureId) {
    return `structure_id must be ${key.structureId}, the structure whose folder holds this file`;
  }
  if (key.structureId === undefined && structureId !== undefined) {
    return `a skill of structure ${structureId} belongs in its folder: move it to skills/${structureId}/${key.slug}.md (git mv keeps its history)`;
  }
  return undefined;
}
