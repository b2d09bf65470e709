/**
 * Reading one skill file from the skills folder: stat, read, parse. Never throws for
 * a bad file; returns what went wrong instead, in words safe to show.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSkillText } from './file-format.js';
import type { Skill } from './types.js';

/** Size and modification time: what decides whether a file must be read again. */
export interface FileSignature {
  mtimeMs: number;
  size: number;
}

/** Outcome of {@link readSkillFile}. */
export type ReadOutcome =
  | { kind: 'skill'; skill: Skill; signature: FileSignature }
  | { kind: 'problem'; message: string; signature: FileSignature }
  | { kind: 'missing' };

/** The path of a skill's file (the slug must be valid). */
export function skillPath(root: string, slug: string): string {
  return join(root, `${slug}.md`);
}

/** Stats a file; undefined when it does not exist or is not a regular file. */
export async function signatureOf(file: string): Promise<FileSignature | undefined> {
  try {
    const info = await stat(file);
    return info.isFile() ? { mtimeMs: info.mtimeMs, size: info.size } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads and parses `<root>/<slug>.md`; absent optional members get file-based defaults. */
export async function readSkillFile(root: string, slug: string): Promise<ReadOutcome> {
  const file = skillPath(root, slug);
  const signature = await signatureOf(file);
  if (!signature) return { kind: 'missing' };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'problem', message: 'file cannot be read', signature };
  }
  return parseFile(slug, text, signature);
}

/**
 * The synchronous twin of {@link readSkillFile} for bulk loads, one open file handle
 * per file (open, fstat, read, close): thousands of files load several times faster
 * than through the thread pool. Callers read in slices and yield between them.
 * `known` skips the read when the file still has that signature.
 */
export function readSkillFileSync(root: string, slug: string, known?: FileSignature): ReadOutcome | 'unchanged' {
  let fd: number;
  try {
    fd = openSync(skillPath(root, slug), 'r');
  } catch {
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
    return parseFile(slug, text, signature);
  } finally {
    closeSync(fd);
  }
}

function parseFile(slug: string, text: string, signature: FileSignature): ReadOutcome {
  const parsed = parseSkillText(slug, text, {
    learned_by: 'user',
    learned_at: new Date(signature.mtimeMs).toISOString(),
    category: 'general',
    difficulty: 'medium',
  });
  if (!parsed.ok) return { kind: 'problem', message: parsed.message, signature };
  return { kind: 'skill', skill: parsed.skill, signature };
}
