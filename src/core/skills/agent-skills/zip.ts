/**
 * Skill folders in a zip (fflate): packing several folders, and unpacking a zip into
 * the skill folders it holds, wherever they sit in it (`pdf/SKILL.md`,
 * `.claude/skills/pdf/SKILL.md`). Unpacking refuses unsafe paths (absolute, `..`,
 * backslashes) and stays within entry, size and count limits, checked before anything
 * is inflated and again after.
 */
import { unzipSync, zipSync, type Zippable } from 'fflate';
import { SKILL_FILE, type FolderProblem, type SkillFolder } from './types.js';

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

/** A fixed modification time, so the same folders always pack to the same bytes. */
const MTIME = new Date('2000-01-01T00:00:00Z');
const IGNORED = /(^|\/)(__MACOSX|\.DS_Store|Thumbs\.db)(\/|$)/;

/** True for a relative path of safe `/`-separated segments (no `..`, `.`, empty or hidden-control segments). */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.length > 1024 || path.startsWith('/') || /[\\\0]/.test(path) || /^[a-zA-Z]:/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
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
 * folder and unsafe paths are reported as problems. Throws {@link ZipError} for bytes
 * that are not a zip or that break the limits.
 */
export function unzipFolders(bytes: Uint8Array, limits: UnzipLimits = UNZIP_LIMITS): { folders: SkillFolder[]; problems: FolderProblem[] } {
  let entries = 0;
  let declared = 0;
  let tooBig: string | undefined;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter(file) {
        if (file.name.endsWith('/')) return false;
        entries++;
        declared += file.originalSize;
        if (file.originalSize > limits.maxFileBytes) tooBig ??= `${file.name} is larger than ${limits.maxFileBytes} bytes`;
        return entries <= limits.maxEntries && declared <= limits.maxTotalBytes && tooBig === undefined;
      },
    });
  } catch {
    throw new ZipError('the upload is not a readable zip file');
  }
  if (entries > limits.maxEntries) throw new ZipError(`the zip holds more than ${limits.maxEntries} files`);
  if (tooBig) throw new ZipError(tooBig);
  let total = 0;
  for (const data of Object.values(files)) total += data.length;
  if (declared > limits.maxTotalBytes || total > limits.maxTotalBytes) throw new ZipError(`the zip holds more than ${limits.maxTotalBytes} bytes`);
  return groupFolders(new Map(Object.entries(files)));
}

/**
 * Groups files (path → bytes, `/`-separated) into skill folders: each directory holding
 * a SKILL.md is a folder named after its last segment.
 */
export function groupFolders(files: ReadonlyMap<string, Uint8Array>): { folders: SkillFolder[]; problems: FolderProblem[] } {
  const problems: FolderProblem[] = [];
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
    folders.get(root)!.files.set(root === '' ? path : path.slice(root.length + 1), data);
  }
  return { folders: [...folders.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), problems };
}
