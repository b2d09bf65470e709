/**
 * `org skills export [slug…] --to DIR` and `org skills import DIR`: the skill library
 * as Agent Skills folders (`<name>/SKILL.md` with scripts, references and assets), for
 * agent clients that load them (e.g. `.claude/skills`, `.agents/skills`), and back.
 * Both go through the API's zip routes; the import shows its dry-run report first.
 * Symbolic links are never followed, on either side.
 */
import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { invalid } from '../../core/errors.js';
import { agentSkills, type ImportReport } from '../../core/skills/index.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson } from '../format.js';
import { skillScope, writeScope, type SkillFlags } from '../scope.js';

/** Arguments of `org skills export`. */
export interface SkillsExportArgs extends SkillFlags {
  slugs: string[];
  to?: string;
}

/** Arguments of `org skills import`. */
export interface SkillsImportArgs extends SkillFlags {
  dir: string;
  dryRun?: boolean;
}

async function isLink(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return info?.isSymbolicLink() ?? false;
}

/** Writes skill folders under `dir` (never through a link); returns the folder paths. */
async function writeFolders(dir: string, folders: agentSkills.SkillFolder[]): Promise<string[]> {
  const written: string[] = [];
  for (const folder of folders) {
    const root = join(dir, folder.name);
    if (await isLink(root)) throw invalid(`${root} is a symbolic link; not writing through it`);
    for (const [path, data] of folder.files) {
      const target = join(root, ...path.split('/'));
      await mkdir(join(target, '..'), { recursive: true });
      if (await isLink(target)) throw invalid(`${target} is a symbolic link; not writing through it`);
      await writeFile(target, data);
    }
    written.push(root);
  }
  return written;
}

/** Exports skills (all the structure's skills when none is named) as Agent Skills folders. */
export async function runSkillsExport(args: SkillsExportArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  if (!args.to) throw invalid('--to DIR is required: the folder the skill folders go into (e.g. .claude/skills)');
  const client = await connect(args, deps);
  const structureId = await skillScope(client, args.structure, deps.env);
  const slugs = args.slugs.length > 0 ? args.slugs : (await client.listSkills({ ...(structureId ? { structure_id: structureId } : {}) })).skills.map((skill) => skill.slug);
  const dir = resolve(deps.cwd, args.to);
  const folders: agentSkills.SkillFolder[] = [];
  for (const slug of slugs) folders.push(...(await agentSkills.unzipFolders(await client.exportSkill(slug, structureId))).folders);
  const written = await writeFolders(dir, folders);
  if (args.json) printJson(deps.output, { folders: written });
  else {
    for (const path of written) deps.output.out(`exported ${path}`);
    deps.output.out(`${written.length} skill${written.length === 1 ? '' : 's'} exported to ${dir}`);
  }
  return 0;
}

/** Reads every file below `dir` (links and special files skipped), keyed by `/`-separated path. */
async function readTree(dir: string): Promise<{ files: Map<string, Uint8Array>; skipped: string[] }> {
  const files = new Map<string, Uint8Array>();
  const skipped: string[] = [];
  const walk = async (path: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(join(path, entry.name), relative);
      else if (entry.isFile()) files.set(relative, new Uint8Array(await readFile(join(path, entry.name))));
      else skipped.push(relative);
    }
  };
  if (await isLink(dir)) throw invalid(`${dir} is a symbolic link; give the folder itself`);
  await walk(dir, '');
  return { files, skipped };
}

function printReport(deps: CommandDeps, report: ImportReport): void {
  for (const entry of report.skills) {
    const detail = entry.problem ?? [entry.status, entry.files.length ? `${entry.files.length} file(s)` : '', entry.origin].filter(Boolean).join(', ');
    deps.output.out(`${entry.action.padEnd(9)} ${entry.slug}${detail ? `  (${detail})` : ''}`);
    for (const warning of entry.warnings) deps.output.out(`          warning: ${warning}`);
  }
  for (const problem of report.problems) deps.output.out(`skipped   ${problem.path}: ${problem.message}`);
}

/** Imports the Agent Skills folders found below DIR: shows the dry-run report, then applies it (unless `--dry-run`). */
export async function runSkillsImport(args: SkillsImportArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const dir = resolve(deps.cwd, args.dir);
  const { files, skipped } = await readTree(dir).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') throw invalid(`${dir} is not a folder`);
    throw error;
  });
  const { folders, problems } = agentSkills.groupFolders(files);
  if (folders.length === 0) throw invalid(`no skill folder (a folder with a SKILL.md) below ${dir}`);
  const client = await connect(args, deps);
  const structureId = await writeScope(client, args.structure, deps.env);
  const zip = agentSkills.zipFolders(folders);
  const plan = await client.importSkills(zip, { structure_id: structureId, dryRun: true });
  plan.problems.push(...problems, ...skipped.map((path) => ({ path, message: 'not a regular file (a link?): skipped' })));
  if (args.dryRun) {
    if (args.json) printJson(deps.output, plan);
    else printReport(deps, plan);
    return 0;
  }
  const done = await client.importSkills(zip, { structure_id: structureId, dryRun: false });
  done.problems.push(...problems);
  if (args.json) printJson(deps.output, done);
  else {
    printReport(deps, done);
    const changed = done.skills.filter((entry) => entry.action === 'create' || entry.action === 'update').length;
    deps.output.out(`${changed} skill${changed === 1 ? '' : 's'} imported${done.skills.some((entry) => entry.origin === 'foreign') ? ' (foreign skills arrive as drafts: review them with org drafts)' : ''}`);
  }
  return done.skills.some((entry) => entry.action === 'skip') ? 1 : 0;
}
