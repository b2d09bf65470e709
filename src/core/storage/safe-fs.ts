/**
 * File operations that never follow a symbolic link below a guarded root.
 *
 * `skills/` is meant to be tracked in git, so one committed link (`skills/x.md ->
 * /etc/passwd`, `skills/.deleted -> /tmp`) would let the server read, overwrite or move
 * files outside its home. Every read, write, append, rename and listing of org's files
 * goes through this module: below a root declared with {@link guardRoot} (the skills
 * folder and `.org/`), no folder on the way may be a link (the resolved path must be the
 * expected one) and the file itself is opened with `O_NOFOLLOW`. A link is refused with
 * a {@link LinkRefused} error (409) that names the path relative to the home, never the
 * absolute path. The roots themselves may be links: that is a deployment choice, not
 * something a repository can smuggle in.
 *
 * Outside every guarded root (tests of single modules, the CLI's credentials) only the
 * last component is checked.
 */
import { constants, type Dirent, type ReadStream } from 'node:fs';
import { type FileHandle, chmod, lstat, mkdir, open, readdir, realpath, rename } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { OrgError } from '../errors.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './modes.js';

/** `O_NOFOLLOW` where the platform has it (0 elsewhere: the last component is then lstat'ed first). */
export const O_NOFOLLOW: number = constants.O_NOFOLLOW ?? 0;
/** Flags of every read: no link, and no blocking on a FIFO someone put in place of a file. */
export const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/** A path below a guarded root that is, or passes through, a symbolic link. */
export class LinkRefused extends OrgError {
  /** The path relative to the folder holding the root (`skills/x.md`, `.org/users.json`). */
  readonly display: string;

  constructor(display: string) {
    super('conflict', `${display} is a symbolic link; org never follows links in its home: replace it with a regular file or folder`);
    this.name = 'LinkRefused';
    this.display = display;
  }
}

/** True when `error` is a {@link LinkRefused}. */
export function isLinkRefused(error: unknown): error is LinkRefused {
  return error instanceof LinkRefused;
}

interface Root {
  /** The root as configured (absolute, normalised). */
  lexical: string;
  /** The root with every link resolved, taken when it was declared. */
  real: string;
  /** Files created below it get mode 0600, folders 0700 (the service state, see modes.ts). */
  private: boolean;
}

const roots = new Map<string, Root>();

/**
 * Declares `dir` a guarded root (creating it when missing): from now on no operation
 * of this module follows a link below it. Called by the composition root for the skills
 * folder and `.org/`, and by the skill store for its own folders. `private`: every file
 * this module creates below it gets mode 0600 and every folder 0700, whatever the umask
 * (the service state; the skill library keeps the modes git and the umask give it).
 */
export async function guardRoot(dir: string, options: { private?: boolean } = {}): Promise<void> {
  const lexical = resolve(dir);
  const existing = roots.get(lexical);
  if (existing) {
    if (options.private) existing.private = true;
    return;
  }
  await mkdir(lexical, { recursive: true, ...(options.private ? { mode: PRIVATE_DIR_MODE } : {}) });
  roots.set(lexical, { lexical, real: await realpath(lexical), private: options.private === true });
}

/** True when `path` is below a private guarded root (see {@link guardRoot}). */
export function isPrivatePath(path: string): boolean {
  return rootOf(resolve(path))?.private === true;
}

/** The innermost guarded root strictly above `path`, if any. */
function rootOf(path: string): Root | undefined {
  let found: Root | undefined;
  for (const root of roots.values()) {
    if (path.startsWith(root.lexical + sep) && (!found || root.lexical.length > found.lexical.length)) found = root;
  }
  return found;
}

/** How a path is named in errors and logs: relative to the folder holding its root. */
export function displayPath(path: string): string {
  const absolute = resolve(path);
  const root = rootOf(absolute);
  return root ? relative(dirname(root.lexical), absolute) : basename(absolute);
}

function isLinkErrno(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ELOOP' || code === 'EMLINK';
}

/**
 * Refuses `dir` when it, or a folder between it and its guarded root, is a link: its
 * resolved path must be the expected one. Folders that do not exist yet are fine (they
 * will be created as real folders); the check then applies to the nearest existing one.
 */
export async function assertNoLinkedFolders(dir: string): Promise<void> {
  const absolute = resolve(dir);
  const root = rootOf(join(absolute, '_'));
  if (!root) return;
  let current = absolute;
  for (;;) {
    if (current === root.lexical) return;
    let real: string;
    try {
      real = await realpath(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        current = dirname(current);
        continue;
      }
      if (isLinkErrno(error)) throw new LinkRefused(displayPath(current));
      throw error;
    }
    if (real !== join(root.real, relative(root.lexical, current))) throw new LinkRefused(displayPath(await outermostLink(root, current)));
    return;
  }
}

/** The first link on the way from `root` down to `path` (only looked up to name it in an error). */
async function outermostLink(root: Root, path: string): Promise<string> {
  let current = root.lexical;
  for (const part of relative(root.lexical, path).split(sep)) {
    current = join(current, part);
    const info = await lstat(current).catch(() => undefined);
    if (info?.isSymbolicLink()) return current;
  }
  return path;
}

/** Refuses a link as the last component (for operations that would otherwise follow it). */
async function assertNotLink(file: string): Promise<void> {
  try {
    if ((await lstat(file)).isSymbolicLink()) throw new LinkRefused(displayPath(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Opens `file` without following a link anywhere below its root (`flags` get `O_NOFOLLOW`). */
export async function openNoFollow(file: string, flags: number, mode?: number): Promise<FileHandle> {
  await assertNoLinkedFolders(dirname(file));
  if (O_NOFOLLOW === 0) await assertNotLink(file);
  // A file created below a private root: 0600 (a creation mode only ever loses bits to the umask).
  const effective = (flags & constants.O_CREAT) !== 0 && isPrivatePath(file) ? PRIVATE_FILE_MODE : mode;
  try {
    return await open(file, flags | O_NOFOLLOW, effective);
  } catch (error) {
    if (isLinkErrno(error)) throw new LinkRefused(displayPath(file));
    throw error;
  }
}

/** Opens a regular file for reading; `EISDIR`-like errors for anything else. */
async function openRegular(file: string): Promise<FileHandle> {
  const handle = await openNoFollow(file, READ_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw Object.assign(new Error(`${displayPath(file)} is not a regular file`), { code: 'EISDIR' });
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads a regular file without following links (errors as `fs.readFile`, plus {@link LinkRefused}). */
export async function readFileSafe(file: string): Promise<Buffer>;
export async function readFileSafe(file: string, encoding: BufferEncoding): Promise<string>;
export async function readFileSafe(file: string, encoding?: BufferEncoding): Promise<Buffer | string> {
  const handle = await openRegular(file);
  try {
    return encoding ? await handle.readFile(encoding) : await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Opens a regular file as a stream without following links; the stream closes the file. */
export async function openReadStream(file: string): Promise<{ stream: ReadStream; size: number }> {
  const handle = await openRegular(file);
  const { size } = await handle.stat();
  return { stream: handle.createReadStream(), size };
}

/**
 * Creates `dir` (and missing parents) as real folders; refuses when a folder on the way
 * is a link. Below a private root each folder it creates gets mode 0700, umask or not.
 */
export async function mkdirSafe(dir: string): Promise<void> {
  await assertNoLinkedFolders(dir);
  const absolute = resolve(dir);
  if (!isPrivatePath(join(absolute, '_'))) {
    await mkdir(absolute, { recursive: true });
    return;
  }
  const first = await mkdir(absolute, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (first === undefined) return;
  // The folders created, from the outermost down: the umask may have taken bits off (never added).
  for (let current = absolute; ; current = dirname(current)) {
    await chmod(current, PRIVATE_DIR_MODE);
    if (current === first || dirname(current) === current) break;
  }
}

/**
 * Writes `data` to `file` atomically (temp file `<file>.<n>`, fsync, rename) without
 * following links: a link in place of the file or of a folder is refused, never
 * written through. write-file-atomic resolves links itself, so it only ever sees
 * paths that have none.
 */
export async function writeFileAtomicSafe(file: string, data: string | Buffer, mode?: number): Promise<void> {
  await mkdirSafe(dirname(file));
  await assertNotLink(file);
  // Below a private root the file is its owner's alone, whatever was asked (set explicitly, so no umask applies).
  const effective = isPrivatePath(file) ? PRIVATE_FILE_MODE : mode;
  await writeFileAtomic(file, data, { fsync: true, ...(effective === undefined ? {} : { mode: effective }) });
}

/** Renames a file within guarded roots; a link as the source or on either folder path is refused. */
export async function renameSafe(from: string, to: string): Promise<void> {
  await assertNoLinkedFolders(dirname(from));
  await assertNoLinkedFolders(dirname(to));
  await assertNotLink(from);
  await assertNotLink(to);
  await rename(from, to);
}

/** Lists a folder (entries as `Dirent`s, which never follow links) after checking it is no link. */
export async function readdirSafe(dir: string): Promise<Dirent[]> {
  await assertNoLinkedFolders(dir);
  return readdir(dir, { withFileTypes: true });
}

/** The entry at `path` without following a link: `undefined` when absent. */
export async function lstatOrUndefined(path: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
