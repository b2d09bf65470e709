/**
 * Runner of `org doctor`: checks what a working setup needs — Node and org versions,
 * the server and its version, the saved credentials and the token, the home folder and
 * its skills, git, the editor — and says for each what to do when it is not right.
 * Exits non-zero when something is broken (warnings alone do not fail).
 */
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { credentialsPath, readCredentials } from '../../core/credentials.js';
import { isOrgError } from '../../core/errors.js';
import { isSkillFileName } from '../../core/skills/index.js';
import { lockPath } from '../../core/storage/index.js';
import { configDirOf, describeSource, resolveConnection, type ConnectionFlags } from '../connection.js';
import { withDefaults, type CommandDeps } from '../deps.js';
import { printJson } from '../format.js';
import { commandLine } from '../quote.js';
import { homeOf } from '../skills/edit.js';
import { lintFiles } from '../skills/lint.js';
import { VERSION } from '../version.js';

const exec = promisify(execFile);

/** Arguments of `org doctor`. */
export interface DoctorArgs extends ConnectionFlags {
  home?: string;
  json?: boolean;
}

/** One finding. */
export interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  /** What to do about it. */
  hint?: string;
}

const MARK: Record<Check['status'], string> = { ok: '✓', warn: '!', fail: '✗' };

/** True when `version` (`v20.19.1`) is at least `min` (`20.19`). */
export function atLeast(version: string, min: string): boolean {
  const have = version.replace(/^v/, '').split('.').map(Number);
  const want = min.split('.').map(Number);
  for (let i = 0; i < want.length; i++) {
    if ((have[i] ?? 0) !== want[i]) return (have[i] ?? 0) > (want[i] ?? 0);
  }
  return true;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function serverChecks(args: DoctorArgs, deps: CommandDeps): Promise<Check[]> {
  const checks: Check[] = [];
  const connection = await resolveConnection(args, deps.env);
  const client = deps.makeClient(connection);
  const where = `${connection.url} (from ${describeSource(connection.urlSource, 'url')})`;
  try {
    const health = await client.health();
    const library = health.skills_index === 'loading' ? 'the skill library still loading' : `${health.skills} skill(s)`;
    checks.push({ name: 'server', status: 'ok', detail: `${where} answers: org ${health.version}, ${library}` });
    if (health.uncommitted_skill_files > 0) {
      checks.push({ name: 'skill commits', status: 'warn', detail: `${health.uncommitted_skill_files} skill file(s) written with --commit are not committed yet (git keeps failing)`, hint: 'see org skills problems' });
    }
    if (health.version !== VERSION) {
      checks.push({ name: 'versions', status: 'warn', detail: `the server runs org ${health.version}, this CLI is ${VERSION}`, hint: 'update the older one so both speak the same API' });
    }
  } catch (error) {
    checks.push({ name: 'server', status: 'fail', detail: `${where}: ${error instanceof Error ? error.message : String(error)}`, hint: 'start one with: org serve (or give another with --url)' });
    return checks;
  }
  if (connection.defaultUrl && connection.defaultUrl !== connection.url) {
    checks.push({ name: 'default server', status: 'warn', detail: `commands go to ${connection.url}, but your default server is ${connection.defaultUrl}`, hint: `make it the default with: ${commandLine('org', 'login', '--url', connection.url)}` });
  }
  if (!connection.token) {
    checks.push({ name: 'token', status: 'fail', detail: `no token for ${connection.url}`, hint: `log in with: ${commandLine('org', 'login', '--url', connection.url)}` });
    return checks;
  }
  try {
    const me = await client.whoami();
    const who = me.email ?? (me.kind === 'admin' ? 'the instance administrator' : `an ${me.kind} token`);
    checks.push({ name: 'token', status: 'ok', detail: `${who} (token from ${describeSource(connection.tokenSource, 'token')}), ${me.structures.length} structure(s)` });
    if (me.kind !== 'mcp' && me.structures.length === 0) {
      checks.push({ name: 'structures', status: 'warn', detail: 'you have no structure yet', hint: commandLine('org', 'structures', 'create', 'My team', '--template', 'exec-team') });
    }
  } catch (error) {
    const expired = isOrgError(error) && error.code === 'unauthorized';
    checks.push({
      name: 'token',
      status: 'fail',
      detail: `the token from ${describeSource(connection.tokenSource, 'token')} ${expired ? 'is unknown or revoked' : `could not be checked: ${error instanceof Error ? error.message : String(error)}`}`,
      hint: `log in again with: ${commandLine('org', 'login', '--url', connection.url)}`,
    });
  }
  return checks;
}

async function credentialChecks(deps: CommandDeps): Promise<Check[]> {
  const dir = configDirOf(deps.env);
  const file = credentialsPath(dir);
  if (!(await exists(file))) return [{ name: 'credentials', status: 'warn', detail: `no saved login (${file})`, hint: 'org login, or the first org serve, writes it' }];
  const mode = (await stat(file)).mode & 0o777;
  const doc = await readCredentials(dir);
  const saved = Object.keys(doc.servers).length;
  if (mode & 0o077) {
    return [{ name: 'credentials', status: 'fail', detail: `${file} is readable by others (mode ${mode.toString(8)})`, hint: commandLine('chmod', '600', file) }];
  }
  return [{ name: 'credentials', status: 'ok', detail: `${file} (mode 600): ${saved} server(s)${doc.default ? `, default ${doc.default}` : ''}` }];
}

async function homeChecks(args: DoctorArgs, deps: CommandDeps): Promise<Check[]> {
  const home = homeOf(args.home, deps.cwd, deps.env);
  const skills = join(home, 'skills');
  if (!(await exists(skills))) {
    return [{ name: 'home', status: 'warn', detail: `${home} has no skills/ folder`, hint: `make it a home with: ${commandLine('org', 'init', home)} (or give --home)` }];
  }
  const files = (await readdir(skills)).filter(isSkillFileName).map((name) => join(skills, name));
  const messages = await lintFiles(files);
  const errors = messages.filter((m) => m.severity === 'error');
  const checks: Check[] = [];
  checks.push(
    errors.length
      ? { name: 'skills', status: 'warn', detail: `${files.length} skill file(s) in ${skills}, ${errors.length} error(s): the server skips those files`, hint: commandLine('org', 'skills', 'lint', skills) }
      : { name: 'skills', status: 'ok', detail: `${files.length} skill file(s) in ${skills}, all valid` },
  );
  if (await exists(lockPath(join(home, '.org')))) checks.push({ name: 'home lock', status: 'ok', detail: `a server holds ${home} (${lockPath(join(home, '.org'))})` });
  return checks;
}

async function gitChecks(args: DoctorArgs, deps: CommandDeps): Promise<Check[]> {
  let version: string;
  try {
    version = (await exec('git', ['--version'], { env: deps.env })).stdout.trim();
  } catch {
    return [{ name: 'git', status: 'warn', detail: 'git is not installed: skills have no history and org serve --commit is off', hint: 'install git' }];
  }
  const skills = join(homeOf(args.home, deps.cwd, deps.env), 'skills');
  if (!(await exists(skills))) return [{ name: 'git', status: 'ok', detail: version }];
  try {
    await exec('git', ['rev-parse', '--is-inside-work-tree'], { cwd: skills, env: deps.env });
    return [{ name: 'git', status: 'ok', detail: `${version}; skills/ is in a git work tree` }];
  } catch {
    return [{ name: 'git', status: 'warn', detail: `${version}; skills/ is not in a git work tree, so skill history is empty`, hint: 'git init (org init does it)' }];
  }
}

/** Runs every check and prints them; exit 1 when one failed. */
export async function runDoctor(args: DoctorArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const checks: Check[] = [
    { name: 'org', status: 'ok', detail: `org ${VERSION}` },
    atLeast(process.version, '20.19')
      ? { name: 'node', status: 'ok', detail: `Node.js ${process.version}` }
      : { name: 'node', status: 'fail', detail: `Node.js ${process.version}; org needs 20.19 or newer`, hint: 'install Node.js 20.19+ (or 22 LTS)' },
    ...(await serverChecks(args, deps)),
    ...(await credentialChecks(deps)),
    ...(await homeChecks(args, deps)),
    ...(await gitChecks(args, deps)),
    deps.env.VISUAL || deps.env.EDITOR
      ? { name: 'editor', status: 'ok', detail: `${deps.env.VISUAL || deps.env.EDITOR} (org skills new/edit open it)` }
      : { name: 'editor', status: 'warn', detail: 'neither $VISUAL nor $EDITOR is set: org skills new/edit use vi', hint: 'export EDITOR=nano (or your editor)' },
  ];
  const failed = checks.some((check) => check.status === 'fail');
  if (args.json) {
    printJson(deps.output, { ok: !failed, checks });
    return failed ? 1 : 0;
  }
  const width = Math.max(...checks.map((check) => check.name.length));
  for (const check of checks) {
    deps.output.out(`${MARK[check.status]} ${check.name.padEnd(width)}  ${check.detail}`);
    if (check.hint && check.status !== 'ok') deps.output.out(`  ${' '.repeat(width)}  → ${check.hint}`);
  }
  const warnings = checks.filter((check) => check.status === 'warn').length;
  deps.output.out(failed ? 'something needs fixing (✗ above)' : `all good${warnings ? ` (${warnings} warning(s))` : ''}`);
  return failed ? 1 : 0;
}
