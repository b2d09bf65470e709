/**
 * The versions of one skill, in its own scope only: the git commits of its file (when the
 * library is in a git work tree) and the texts updates through org replaced and kept in
 * the deleted area that git does not hold (org commits only with `--commit` or a remote,
 * so without it these are the versions of every edit made through org).
 *
 * Nothing of another scope is listed or read. A commit's file counts as this skill's
 * when its path at that commit is in this skill's scope folder (`<structure_id>/…` for a
 * structure skill), or it lay in the root (the layout before structure folders, and every
 * instance skill) and its front matter names the same scope (`structure_id` this
 * structure, or none for an instance skill). A version whose owner cannot be read from
 * the root is left out. Texts are read only from git's blobs and from regular files of
 * the deleted area (never through a link), each at most {@link MAX_VERSION_BYTES}.
 */
import { basename } from 'node:path';
import { invalid, notFound } from '../errors.js';
import type { SkillCommit } from '../schemas/skills.js';
import type { SkillVersion, SkillVersionList } from '../schemas/skill-versions.js';
import { lstatOrUndefined, readFileSafe } from '../storage/index.js';
import { parseSkillText, type ParseResult } from './file-format.js';
import { readFrontMatter } from './front-matter-read.js';
import { blobSizes, fileCommits, MAX_FILE_COMMITS, readBlobs, type FileCommit } from './git-versions.js';
import { runGit } from './git.js';
import { fileKey, relativeFile, scopeDir, skillFile, type SkillKey } from './skill-key.js';
import { DELETED_DIR, listTrash } from './trash.js';
import { skillETag } from './version.js';

/** The largest version text read: a body of 256 KiB and 64 KiB of front matter fit with room to spare. */
export const MAX_VERSION_BYTES = 1024 * 1024;

/** A version found, with how to read its text. */
interface Found {
  version: SkillVersion;
  read(): Promise<string>;
}

/** Where the library sits in its git work tree. */
interface Library {
  top: string;
  /** The skills folder relative to the top, `/`-terminated (empty at the top). */
  prefix: string;
}

/** The defaults a skill file's missing members get when it is read (as the library reads files). */
const FILE_DEFAULTS = { learned_by: 'user', category: 'general', difficulty: 'medium' } as const;

/** The work tree holding the skills folder, or undefined (no git, not a repository). */
async function libraryIn(root: string): Promise<Library | undefined> {
  try {
    const [top = '', prefix = ''] = (await runGit(root, ['rev-parse', '--show-toplevel', '--show-prefix'])).split('\n');
    return top ? { top, prefix } : undefined;
  } catch {
    return undefined;
  }
}

/** The structure a skill text names in its front matter (undefined: none), or null when that cannot be read. */
function ownerOf(text: string): string | undefined | null {
  try {
    const declared = readFrontMatter(text).data.structure_id;
    if (declared === undefined || declared === null) return undefined;
    return typeof declared === 'string' ? declared : null;
  } catch {
    return null;
  }
}

/** The git versions of `key`'s file in its scope. */
async function gitVersions(library: Library, key: SkillKey): Promise<Found[]> {
  const { top, prefix } = library;
  const commits = await fileCommits(top, `${prefix}${relativeFile(key)}`);
  const mine: FileCommit[] = [];
  const rooted: FileCommit[] = [];
  for (const commit of commits) {
    if (!commit.path.startsWith(prefix)) continue;
    const place = fileKey(commit.path.slice(prefix.length));
    if (place.kind !== 'skill') continue;
    if (place.key.structureId !== undefined) {
      if (place.key.structureId === key.structureId) mine.push(commit);
    } else rooted.push(commit);
  }
  const sizes = await blobSizes(top, commits.map((commit) => commit.blob));
  // A file in the root is this skill's only when its front matter names the same scope.
  if (rooted.length > 0) {
    const readable = new Map([...sizes].filter(([blob, size]) => size <= MAX_VERSION_BYTES && rooted.some((commit) => commit.blob === blob)));
    const texts = await readBlobs(top, readable);
    for (const commit of rooted) {
      const text = texts.get(commit.blob);
      if (text !== undefined && ownerOf(text) === key.structureId) mine.push(commit);
    }
  }
  return commits
    .filter((commit) => mine.includes(commit))
    .map((commit) => ({
      version: { id: commit.commit, source: 'git', date: commit.date, author: commit.author, message: commit.message },
      async read() {
        const size = sizes.get(commit.blob);
        if (size === undefined || size > MAX_VERSION_BYTES) throw tooLarge(key, commit.commit);
        const text = (await readBlobs(top, new Map([[commit.blob, size]]))).get(commit.blob);
        if (text === undefined) throw notFound(`version ${commit.commit} of skill ${key.slug} cannot be read from git`);
        return text;
      },
    }));
}

/** Paths under the deleted area of `key`'s scope that git tracks (relative to the top). */
async function trackedKept(library: Library, key: SkillKey): Promise<Set<string>> {
  const area = `${library.prefix}${key.structureId === undefined ? '' : `${key.structureId}/`}${DELETED_DIR}/`;
  try {
    return new Set((await runGit(library.top, ['ls-files', '-z', '--', area])).split('\0').filter(Boolean));
  } catch {
    return new Set();
  }
}

/** The kept copies of `key` that updates replaced, those git holds left out. */
async function keptVersions(root: string, key: SkillKey, library: Library | undefined): Promise<Found[]> {
  const scope = scopeDir(root, key.structureId);
  const entries = (await listTrash(scope).catch(() => [])).filter((entry) => entry.slug === key.slug && entry.replaced).slice(0, MAX_FILE_COMMITS);
  if (entries.length === 0) return [];
  const tracked = library ? await trackedKept(library, key) : new Set<string>();
  const areaPath = `${library?.prefix ?? ''}${key.structureId === undefined ? '' : `${key.structureId}/`}${DELETED_DIR}/`;
  const found: Found[] = [];
  for (const entry of entries) {
    const name = basename(entry.file);
    if (tracked.has(`${areaPath}${name}`)) continue;
    const read = async (): Promise<string> => {
      const info = await lstatOrUndefined(entry.file);
      if (!info?.isFile()) throw notFound(`version ${name} of skill ${key.slug} is gone`);
      if (info.size > MAX_VERSION_BYTES) throw tooLarge(key, name);
      return readFileSafe(entry.file, 'utf8');
    };
    // A copy in the root's deleted area is this skill's only when its front matter names the same scope.
    if (key.structureId === undefined && ownerOf(await read().catch(() => '')) !== undefined) continue;
    const id = `kept-${name.slice(key.slug.length + 2, -'.replaced.md'.length)}`;
    found.push({ version: { id, source: 'kept', date: entry.deletedAt, author: null, message: null }, read });
  }
  return found;
}

/** Every version of `key` in its scope, newest first, and whether the library is in git. */
async function findVersions(root: string, key: SkillKey): Promise<{ git: boolean; found: Found[] }> {
  const library = await libraryIn(root);
  const found = [...(library ? await gitVersions(library, key) : []), ...(await keptVersions(root, key, library))];
  found.sort((a, b) => (a.version.date === b.version.date ? 0 : a.version.date < b.version.date ? 1 : -1));
  return { git: library !== undefined, found };
}

/** The versions of a skill (see the module comment), newest first. */
export async function listSkillVersions(root: string, key: SkillKey): Promise<SkillVersionList> {
  const { git, found } = await findVersions(root, key);
  return { git, versions: found.map((entry) => entry.version) };
}

/** The git commits of a skill's file in its scope, newest first ([] without git). */
export async function skillCommits(root: string, key: SkillKey): Promise<SkillCommit[]> {
  const library = await libraryIn(root);
  if (!library) return [];
  return (await gitVersions(library, key)).map(({ version }) => ({ commit: version.id, author: version.author ?? '', date: version.date, message: version.message ?? '' }));
}

/** One version read: its listing entry, its text, and the text parsed as a skill. */
export interface ReadVersion {
  version: SkillVersion;
  text: string;
  parsed: ParseResult;
}

/**
 * Reads version `id` of a skill: a kept copy by its id, a commit by its full hash or a
 * unique prefix of it (7 to 40 hex digits) among the skill's own versions. 404 when the
 * skill has no such version; 400 when a prefix names several.
 */
export async function readSkillVersion(root: string, key: SkillKey, id: string): Promise<ReadVersion> {
  const { found } = await findVersions(root, key);
  const wanted = id.startsWith('kept-') ? id : id.toLowerCase();
  const matches = wanted.startsWith('kept-') ? found.filter((entry) => entry.version.id === wanted) : found.filter((entry) => entry.version.source === 'git' && entry.version.id.startsWith(wanted));
  if (matches.length === 0) throw notFound(`skill ${key.slug} has no version ${id}`);
  if (matches.length > 1) throw invalid(`version ${id} is ambiguous: ${matches.length} versions of ${key.slug} start with it; give more digits`, [{ path: 'params.version', message: 'names several versions' }]);
  const entry = matches[0]!;
  const text = await entry.read();
  return { version: entry.version, text, parsed: parseSkillText(key.slug, text, FILE_DEFAULTS) };
}

/** The current file of a skill and its ETag (computed from that text, so the two always agree); 404 when it is gone or no longer parses. */
export async function currentSkillText(root: string, key: SkillKey): Promise<{ text: string; etag: string }> {
  const file = skillFile(root, key);
  const info = await lstatOrUndefined(file);
  if (!info?.isFile() || info.size > MAX_VERSION_BYTES) throw notFound(`skill ${key.slug} not found`);
  const text = await readFileSafe(file, 'utf8').catch(() => undefined);
  const parsed = text === undefined ? undefined : parseSkillText(key.slug, text, FILE_DEFAULTS);
  if (text === undefined || !parsed?.ok) throw notFound(`skill ${key.slug} not found`);
  return { text, etag: skillETag(parsed.skill) };
}

function tooLarge(key: SkillKey, id: string) {
  return invalid(`version ${id} of skill ${key.slug} is larger than ${MAX_VERSION_BYTES} bytes and is not read`);
}
