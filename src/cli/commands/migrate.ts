/**
 * Runner of `org migrate`: copies the service state of a filesystem home into a
 * PostgreSQL database (`--from <home> --to postgres://…`), or of a database into a home
 * (`--from postgres://… --to-dir <home>`). Users, MCP keys, invites, structures with their
 * journals, workspace logs, chat histories with their run events, artifacts, the audit log
 * and the replies owed to inbound e-mails are copied with their ids; what the target already has is kept, so running it again completes a
 * copy that was cut short and otherwise changes nothing. Skills are not state: they stay
 * files in the home's `skills/` (share them with `--skills-remote`).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { invalid } from '../../core/errors.js';
import { withDefaults, type CommandDeps } from '../deps.js';
import { redactUrl } from '../redact.js';

/** Arguments of `org migrate`. */
export interface MigrateArgs {
  from?: string;
  to?: string;
  toDir?: string;
}

const PG_URL = /^postgres(ql)?:\/\/\S+$/;

/** Where the copy goes from and to, checked before anything is opened. */
function plan(args: MigrateArgs, cwd: string): { kind: 'to-db'; home: string; url: string } | { kind: 'to-dir'; url: string; home: string } {
  const from = args.from?.trim();
  if (!from) throw invalid('--from is required: the home folder to copy, or a postgres:// URL');
  if (args.to !== undefined && args.toDir !== undefined) throw invalid('give either --to (a database) or --to-dir (a home folder), not both');
  if (PG_URL.test(from)) {
    if (args.toDir === undefined || args.toDir.trim() === '') throw invalid('copying out of a database needs --to-dir <home>: the folder to copy it into');
    return { kind: 'to-dir', url: from, home: resolve(cwd, args.toDir) };
  }
  if (args.to === undefined) throw invalid('copying a home needs --to postgres://user:password@host:port/database');
  if (!PG_URL.test(args.to.trim())) throw invalid(`--to must be a PostgreSQL URL (postgres://user:password@host:port/database), got "${redactUrl(args.to)}"`);
  const home = resolve(cwd, from);
  if (!existsSync(home) || !statSync(home).isDirectory()) throw invalid(`--from ${from} is neither a folder nor a postgres:// URL`);
  if (!existsSync(resolve(home, '.org'))) throw invalid(`--from ${from} is not an org home: it has no .org folder (start org serve there once, or name the right folder)`);
  return { kind: 'to-db', home, url: args.to.trim() };
}

/** Runs `org migrate`; resolves with the exit code. */
export async function runMigrate(args: MigrateArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const route = plan(args, deps.cwd);
  // Loaded here: the stores and pg are needed by this command only.
  const { openFsState, openPgState } = await import('../../stores/copy/state.js');
  const { copyState } = await import('../../stores/copy/copy.js');
  const database = `the database ${redactUrl(route.url)}`;
  const from = route.kind === 'to-db' ? await openFsState(route.home) : await openPgState(route.url, database);
  let to;
  try {
    to = route.kind === 'to-db' ? await openPgState(route.url, database) : await openFsState(route.home);
  } catch (error) {
    await from.close();
    throw error;
  }
  deps.output.out(`org: copying ${from.label} into ${to.label}`);
  let total = 0;
  try {
    await copyState(from, to, (kind, counts) => {
      total += counts.copied;
      deps.output.out(`org: ${kind}: ${counts.copied} copied, ${counts.kept} already there`);
    });
  } finally {
    await Promise.all([from.close(), to.close()]);
  }
  deps.output.out(total === 0 ? 'org: nothing to copy: the target already holds everything' : `org: done: ${total} records copied`);
  deps.output.out(`org: skills are files, not copied: they stay in ${route.kind === 'to-db' ? route.home : 'the source home'}/skills (share them with --skills-remote)`);
  return 0;
}
