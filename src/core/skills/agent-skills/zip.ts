/**
 * Skill folders in a zip (fflate): packing several folders, and unpacking a zip into
 * the skill folders it holds, wherever they sit in it (`pdf/SKILL.md`,
 * `.claude/skills/pdf/SKILL.md`).
 *
 * An upload is bounded by what it really inflates to, never by the sizes its headers
 * declare (they can lie): entries are inflated with fflate's streaming inflater, a few
 * KiB of input at a time with a turn of the event loop between steps, counting the bytes
 * that come out, and the whole upload stops at the first entry or total past its limit.
 * Unsafe paths (absolute, `..`, backslashes, too deep or too long), symbolic link
 * entries and hidden files or folders inside a skill folder (`.git/`, `.env`) are
 * skipped and reported; nothing is ever written from a zip but regular files.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Unzip, UnzipInflate, zipSync, type Zippable } from 'fflate';
import { SKILL_FILE, type FolderProblem, type SkillFolder } from './types.js';
import { readZipDirectory } from './zip-directory.js';

/** Limits of {@link unzipFolders}. */
export interface UnzipLimits {
  /** Most entries (default 2,000). */
  maxEntries: number;
  /** Largest file once inflated, in bytes (default 10 MiB). */
  maxFileBytes: number;
  /** Largest total once inflated, in bytes (default 64 MiB). */
  maxTotalBytes: number;
}

/** The default limits. */
export const UNZIP_LIMITS: UnzipLimits = { maxEntries: 2000, maxFileBytes: 10 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

/**
 * Compressed bytes handed to the inflater per step. Deflate expands at most about 1,000
 * times, so one step makes at most ~4 MiB and takes a few milliseconds; between steps
 * the event loop serves other requests.
 */
export const UNZIP_STEP_BYTES = 4 * 1024;
/** Deepest path accepted inside an upload (segments), and longest segment (bytes, what file systems take). */
export const MAX_PATH_DEPTH = 32;
export const MAX_SEGMENT_BYTES = 255;

/** A fixed modification time, so the same folders always pack to the same bytes. */
const MTIME = new Date('2000-01-01T00:00:00Z');
const IGNORED = /(^|\/)(__MACOSX|\.DS_Store|Thumbs\.db)(\/|$)/;

/** True for a relative path of safe `/`-separated segments (no `..`, `.` or empty segments; bounded depth and length). */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.length > 1024 || path.startsWith('/') || /[\\\0]/.test(path) || /^[a-zA-Z]:/.test(path)) return false;
  const segments = path.split('/');
  if (segments.length > MAX_PATH_DEPTH) return false;
  return segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..' && Buffer.byteLength(segment) <= MAX_SEGMENT_BYTES);
}

/** True when a path names a hidden file or folder (a segment starting with `.`: `.git/config`, `.env`). */
export function isHiddenPath(path: string): boolean {
  return path.split('/').some((segment) => segment.startsWith('.'));
}

/** Packs folders as `<name>/<path>` entries. */
export function zipFolders(folders: readonly SkillFolder[]): Uint8Array {
  const tree: Zippable = {};
  for (const folder of folders) {
    for (const [path, bytes] of folder.files) tree[`${folder.name}/${path}`] = [bytes, { mtime: MTIME }];
  }
  return zipSync(tree, { level: 6, mtime: MTIME });
}

/** Error thrown when a zip cannot be read at all (not a zip, or past the limits). */
export class ZipError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipError';
  }
}

/**
 * The skill folders in a zip: every folder holding a SKILL.md, with the files below it
 * (a file belongs to the deepest skill folder above it). Files outside any skill
 * folder, unsafe or hidden paths and link entries are reported as problems. Throws
 * {@link ZipError} for bytes that are not a zip or that break the limits, counted on
 * the bytes really inflated (see the module comment).
 */
export async function unzipFolders(bytes: Uint8Array, limits: UnzipLimits = UNZIP_LIMITS): Promise<{ folders: SkillFolder[]; problems: FolderProblem[] }> {
  const directory = readZipDirectory(bytes);
  if (!directory) throw new ZipError('the upload is not a readable zip file');
  // The declared count can lie low; it is checked again as the entries come.
  if (directory.declared > limits.maxEntries && directory.declared !== 0xffff) throw new ZipError(`the zip holds more than ${limits.maxEntries} files`);
  const files = new Map<string, Uint8Array>();
  const problems: FolderProblem[] = [];
  let entries = 0;
  let total = 0;
  let failure: ZipError | undefined;
  const unzip = new Unzip((file) => {
    if (failure || file.name.endsWith('/')) return;
    if (++entries > limits.maxEntries) {
      failure = new ZipError(`the zip holds more than ${limits.maxEntries} files`);
      return;
    }
    const path = file.name.slice(0, 200);
    if (directory.links.has(file.name)) {
      problems.push({ path, message: 'a symbolic link: skipped (only regular files are imported)' });
      return;
    }
    if (file.compression !== 0 && file.compression !== 8) {
      problems.push({ path, message: `compressed with method ${file.compression}, which is not read: skipped` });
      return;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (error, data, final) => {
      if (failure) return;
      if (error) {
        problems.push({ path, message: 'cannot be inflated: skipped' });
        return;
      }
      size += data.length;
      total += data.length;
      if (size > limits.maxFileBytes) failure = new ZipError(`${path} is larger than ${limits.maxFileBytes} bytes once inflated`);
      else if (total > limits.maxTotalBytes) failure = new ZipError(`the zip holds more than ${limits.maxTotalBytes} bytes once inflated`);
      if (failure) {
        file.terminate();
        return;
      }
      if (data.length > 0) chunks.push(data);
      if (final) files.set(file.name, join(chunks, size));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  for (let offset = 0; offset < bytes.length && !failure; offset += UNZIP_STEP_BYTES) {
    const end = Math.min(bytes.length, offset + UNZIP_STEP_BYTES);
    try {
      unzip.push(bytes.subarray(offset, end), end === bytes.length);
    } catch {
      throw new ZipError('the upload is not a readable zip file');
    }
    if (end < bytes.length) await yieldToEventLoop();
  }
  if (failure) throw failure;
  return groupFolders(files, problems);
}

function join(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/**
 * Groups files (path → bytes, `/`-separated) into skill folders: each directory holding
 * a SKILL.md is a folder named after its last segment.
 */
export function groupFolders(files: ReadonlyMap<string, Uint8Array>, found: FolderProblem[] = []): { folders: SkillFolder[]; problems: FolderProblem[] } {
  const problems: FolderProblem[] = [...found];
  const safe = new Map<string, Uint8Array>();
  for (const [path, data] of files) {
    if (IGNORED.test(path)) continue;
    if (!isSafeRelativePath(path)) problems.push({ path: path.slice(0, 200), message: 'unsafe path: skipped' });
    else safe.set(path, data);
  }
  const roots = [...safe.keys()]
    .filter((path) => path === SKILL_FILE || path.endsWith(`/${SKILL_FILE}`))
    .map((path) => path.slice(0, -SKILL_FILE.length).replace(/\/$/, ''))
    .sort((a, b) => b.length - a.length);
  const folders = new Map<string, SkillFolder>();
  for (const root of roots) folders.set(root, { name: root.split('/').at(-1) || 'skill', files: new Map() });
  for (const [path, data] of safe) {
    const root = roots.find((candidate) => candidate === '' || path.startsWith(`${candidate}/`));
    if (root === undefined) {
      problems.push({ path, message: 'not inside a skill folder (no SKILL.md above it): skipped' });
      continue;
    }
    const inside = root === '' ? path : path.slice(root.length + 1);
    // A hidden file or folder in a skill (`.git/`, `.env`) is never stored: a planted
    // `.git/config` would run its hooks on the next `git status` there.
    if (isHiddenPath(inside)) {
      problems.push({ path: path.slice(0, 200), message: 'a hidden file or folder: skipped (files and folders starting with "." are never imported)' });
      continue;
    }
    folders.get(root)!.files.set(inside, data);
  }
  return { folders: [...folders.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), problems };
}
