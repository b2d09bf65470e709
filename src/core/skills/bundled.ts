/**
 * The bundled skill library: the skills the org package ships, copied into a new home so
 * that a first chat has playbooks to follow. It is a copy, so the home's files are the
 * user's to edit; an existing library is never touched.
 *
 * What is copied is what the package ships, never what happens to lie in its `skills/`
 * folder: a draft, an API write or a broken edit that a server running on the package
 * folder left there is no bundled skill. The build writes the list (and texts) into
 * `dist/bundled-skills.json` from what git tracks ({@link shippedSkills} reads it); a
 * package without that file (a source run) takes the same list from git at once, and a
 * package that is no git checkout (an unpacked tarball) ships the folder as it is.
 */
import { execFile } from 'node:child_process';
import { link, mkdir, readdir, readFile, realpath, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { isSkillFileName } from './load.js';

const exec = promisify(execFile);

/** One bundled skill: its file name (`<slug>.md`) and its text. */
export interface BundledSkill {
  name: string;
  text: string;
}

/** The file, inside the package's `dist/`, that the build writes the bundled skills into. */
export const BUNDLED_MANIFEST = 'bundled-skills.json';

/** What seeding did. */
export interface SeedResult {
  /** Slugs copied. */
  copied: string[];
  /** Why nothing was copied, when nothing was. */
  skipped?: 'exists';
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function isBundledSkill(value: unknown): value is BundledSkill {
  const entry = value as Partial<BundledSkill> | null;
  return typeof entry === 'object' && entry !== null && typeof entry.name === 'string' && isSkillFileName(entry.name) && basename(entry.name) === entry.name && typeof entry.text === 'string';
}

/**
 * The skills the package at `packageDir` ships: `dist/bundled-skills.json` when the build
 * wrote it, else {@link listShippedSkills}.
 */
export async function shippedSkills(packageDir: string): Promise<BundledSkill[]> {
  try {
    const manifest = JSON.parse(await readFile(join(packageDir, 'dist', BUNDLED_MANIFEST), 'utf8')) as { skills?: unknown };
    if (Array.isArray(manifest.skills) && manifest.skills.every(isBundledSkill)) return manifest.skills;
  } catch {
    // No manifest (a source run, or a build that stopped early): list them now.
  }
  return listShippedSkills(packageDir);
}

/**
 * The skill files of `<packageDir>/skills/` that git tracks, as the index holds them, when
 * the package folder is the top of a git work tree; else (no git, or a package installed
 * inside someone else's repository) every skill file of the folder. Sorted by name.
 */
export async function listShippedSkills(packageDir: string): Promise<BundledSkill[]> {
  const tracked = await trackedSkills(packageDir);
  if (tracked) return tracked;
  const folder = join(packageDir, 'skills');
  const names = (await readdir(folder)).filter(isSkillFileName).sort();
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(join(folder, name), 'utf8') })));
}

async function trackedSkills(packageDir: string): Promise<BundledSkill[] | undefined> {
  let top: string;
  try {
    top = (await exec('git', ['rev-parse', '--show-toplevel'], { cwd: packageDir })).stdout.trim();
  } catch {
    return undefined; // git missing, or not a work tree
  }
  if ((await realpath(top)) !== (await realpath(packageDir))) return undefined;
  // `ls-files -s`: "<mode> <object> <stage>\t<path>" for each tracked file.
  const { stdout } = await exec('git', ['ls-files', '-s', '-z', '--', 'skills'], { cwd: packageDir, maxBuffer: 16 * 1024 * 1024 });
  const entries = stdout
    .split('\0')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [meta = '', path = ''] = line.split('\t');
      return { object: meta.split(' ')[1] ?? '', path };
    })
    .filter(({ path }) => path.startsWith('skills/') && !path.slice('skills/'.length).includes('/') && isSkillFileName(path.slice('skills/'.length)))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const skills: BundledSkill[] = [];
  for (const { object, path } of entries) {
    const { stdout: text } = await exec('git', ['cat-file', 'blob', object], { cwd: packageDir, maxBuffer: 16 * 1024 * 1024 });
    skills.push({ name: path.slice('skills/'.length), text });
  }
  return skills;
}

/** Writes `dist/bundled-skills.json` for the package at `packageDir` (a build step). */
export async function writeBundledManifest(packageDir: string): Promise<BundledSkill[]> {
  const skills = await listShippedSkills(packageDir);
  await mkdir(join(packageDir, 'dist'), { recursive: true });
  await writeFile(join(packageDir, 'dist', BUNDLED_MANIFEST), `${JSON.stringify({ skills })}\n`);
  return skills;
}

/**
 * Creates `file` with `text` unless it exists (false then); a crash leaves no half-written
 * file, only a temp named as atomic writes name theirs (swept when the library loads).
 */
async function createOnly(file: string, text: string): Promise<boolean> {
  const temp = `${file}.${process.pid}`;
  await writeFile(temp, text, { flag: 'wx' });
  try {
    await link(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp);
  }
}

/**
 * Copies the bundled `skills` into `target` when `target` does not exist yet (a new home),
 * creating it. `force` copies into an existing folder too, never overwriting a file that
 * is there (`org init` on a folder without skills).
 */
export async function seedBundledSkills(target: string, skills: readonly BundledSkill[], options: { force?: boolean } = {}): Promise<SeedResult> {
  if (!options.force && (await isDir(target))) return { copied: [], skipped: 'exists' };
  await mkdir(target, { recursive: true });
  const copied: string[] = [];
  for (const skill of skills) {
    if (await createOnly(join(target, skill.name), skill.text)) copied.push(skill.name.slice(0, -3));
  }
  return { copied };
}
