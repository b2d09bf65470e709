/**
 * The skill library shared through a git remote (`--skills-remote`): each instance keeps
 * its own clone in `<home>/skills` (the watcher and the persisted index work on it as on
 * any folder). An API write is committed and pushed; a push the remote rejects is
 * followed by fetch, rebase and a new push; a rebase that conflicts on the same file
 * refuses the write with 409, keeping both versions: the remote's stays live and the
 * refused one is committed to the deleted area (`.deleted/<slug>--<time>.md`), where it
 * can be read and restored. `pull` brings the clone up to the remote (another instance
 * announced a commit, or the periodic fetch found one pushed from outside org).
 *
 * Every git operation of a clone runs one at a time (a mutex of its own); the store runs
 * `pull` under its write lock, so a pull never meets a half-made write.
 */
import { access, mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { OrgError, conflict } from '../errors.js';
import { KeyedMutex } from '../storage/index.js';
import { identityEnv, runGit } from './git.js';
import { fileKey } from './skill-key.js';
import { DELETED_DIR, fileTimestamp } from './trash.js';

/** Options of {@link createSkillRemote}. */
export interface SkillRemoteOptions {
  /** The skills folder of this instance, which becomes (or is) a clone of `url`. */
  root: string;
  /** The remote: a URL git understands or the path of a bare repository. */
  url: string;
  /** Called with the new commit after each successful push (other instances are told to pull). */
  onPublished?: (commit: string) => void;
  /** Current time (the names of kept conflicting versions). */
  clock?: () => Date;
  /** How many times a rejected push is rebased and tried again (default 5). */
  attempts?: number;
}

/** The outcome of a pull: the top-level skill files (`<slug>.md`) it changed. */
export interface PullResult {
  changed: string[];
  commit: string | undefined;
}

/** A clone of the skills remote. */
export interface SkillRemote {
  readonly url: string;
  /** Clones the remote into `root`, or checks that `root` is a clone of it. Call before loading. */
  prepare(): Promise<void>;
  /**
   * Commits `files` (absolute paths under root) and pushes. Throws 409 when the remote
   * changed the same file meanwhile (both versions kept, the remote's live) and 503 when
   * the remote cannot be reached; in both cases the clone is left at the remote's state
   * and the error's `changedFiles` names the skill files that moved back.
   */
  publish(files: string[], message: string): Promise<void>;
  /** Fetches and brings the clone up to the remote; returns the skill files that changed. */
  pull(): Promise<PullResult>;
  /** The commit the clone is at (undefined before the first commit). */
  head(): Promise<string | undefined>;
}

/** A refused publish: the files of the clone that moved back to the remote's version. */
export class PublishRefused extends OrgError {
  constructor(
    error: OrgError,
    readonly changedFiles: string[],
  ) {
    super(error.code, error.message, { ...(error.extra ? { extra: error.extra } : {}), cause: error.cause });
  }
}

const LOCK = 'clone';

/** Creates the clone's handle (nothing is done until `prepare`). */
export function createSkillRemote(options: SkillRemoteOptions): SkillRemote {
  const { root, url } = options;
  const clock = options.clock ?? (() => new Date());
  const attempts = options.attempts ?? 5;
  const mutex = new KeyedMutex();
  let branch = 'main';
  const git = (...args: string[]) => runGit(root, args);
  const gitAs = async (...args: string[]) => runGit(root, args, await identityEnv(root));

  const revParse = async (ref: string): Promise<string | undefined> => {
    try {
      return (await git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`)).trim() || undefined;
    } catch {
      return undefined;
    }
  };

  /** Skill files (the root's and the structures' folders', see `skill-key.ts`) that differ between two commits (either may be absent). */
  const changedBetween = async (from: string | undefined, to: string | undefined): Promise<string[]> => {
    if (from === to) return [];
    const args = from && to ? ['diff', '--name-only', from, to] : to ? ['ls-tree', '-r', '--name-only', to] : from ? ['ls-tree', '-r', '--name-only', from] : undefined;
    if (!args) return [];
    return (await git(...args))
      .split('\n')
      .map((line) => line.trim())
      .filter((name) => fileKey(name).kind !== 'other');
  };

  const fetch = async () => {
    await git('fetch', '--quiet', '--prune', 'origin');
  };

  /** Puts the clone at the remote's commit (or back to an empty branch), keeping nothing local. */
  const resetToRemote = async () => {
    const remote = await revParse(`origin/${branch}`);
    if (remote) await git('reset', '--quiet', '--hard', remote);
    else {
      // The remote has no commit yet: the branch goes back to unborn, and its files go.
      const head = await revParse('HEAD');
      if (head) {
        await git('update-ref', '-d', `refs/heads/${branch}`);
        await git('rm', '-r', '--quiet', '--cached', '--ignore-unmatch', '.');
        await git('clean', '-fdq', '-e', '.org');
      }
    }
  };

  /** Tries to push; 'rejected' when the remote moved on, 'ok' when pushed. Throws 503 when unreachable. */
  const push = async (): Promise<'ok' | 'rejected'> => {
    try {
      await git('push', '--quiet', '--porcelain', 'origin', `HEAD:refs/heads/${branch}`);
      return 'ok';
    } catch (error) {
      const text = String((error as { stderr?: string }).stderr ?? error) + String((error as { stdout?: string }).stdout ?? '');
      if (/\[rejected\]|non-fast-forward|fetch first|! \[remote rejected\]|failed to update ref|cannot lock ref/i.test(text)) return 'rejected';
      throw new OrgError('unavailable', 'the skills remote cannot be reached; nothing was changed, try again later', { cause: error });
    }
  };

  /** Rebases local commits onto the remote; the conflicting files when it cannot. */
  const rebase = async (): Promise<{ conflicts: string[] }> => {
    const remote = await revParse(`origin/${branch}`);
    if (!remote) return { conflicts: [] };
    try {
      await gitAs('rebase', '--quiet', '--autostash', remote);
      return { conflicts: [] };
    } catch (error) {
      const conflicts = (await git('diff', '--name-only', '--diff-filter=U').catch(() => ''))
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      await git('rebase', '--abort').catch(() => undefined);
      if (conflicts.length === 0) throw error;
      return { conflicts };
    }
  };

  /** Pushes, rebasing onto the remote as long as it is rejected. */
  const pushWithRetries = async (onConflict: (files: string[]) => Promise<never>): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      if ((await push()) === 'ok') {
        const head = await revParse('HEAD');
        if (head) options.onPublished?.(head);
        return;
      }
      if (attempt >= attempts) throw new OrgError('unavailable', `the skills remote kept moving; gave up after ${attempts} tries, nothing was changed`);
      await fetch();
      const { conflicts } = await rebase();
      if (conflicts.length > 0) await onConflict(conflicts);
    }
  };

  /** Commits the versions a conflicting write carried into the deleted area, then pushes them. */
  const keepRefused = async (conflicts: string[], refused: Map<string, string>): Promise<string[]> => {
    const kept: string[] = [];
    for (const path of conflicts) {
      const text = refused.get(path);
      const read = fileKey(path);
      if (text === undefined || read.kind !== 'skill') continue;
      // Into the deleted area of the skill's own scope (the instance library's, or its structure's).
      const area = read.key.structureId === undefined ? DELETED_DIR : `${read.key.structureId}/${DELETED_DIR}`;
      await mkdir(join(root, area), { recursive: true });
      const existing = new Set(await readdir(join(root, area)));
      const slug = read.key.slug;
      const stamp = fileTimestamp(clock());
      let name = `${slug}--${stamp}.md`;
      for (let n = 2; existing.has(name); n++) name = `${slug}--${stamp}-${n}.md`;
      await writeFile(join(root, area, name), text);
      kept.push(`${area}/${name}`);
    }
    if (kept.length === 0) return kept;
    await git('add', '--', ...kept);
    await gitAs('commit', '--quiet', '--no-verify', '-m', `skills: keep ${kept.length === 1 ? 'a version' : 'versions'} refused by a conflict (${kept.join(', ')})`);
    await pushWithRetries(async () => {
      // New files in the deleted area cannot conflict; a remote that keeps refusing them is a failure.
      throw new OrgError('unavailable', 'the skills remote refused the kept version');
    });
    return kept;
  };

  return {
    url,

    prepare: () =>
      mutex.run(LOCK, async () => {
        await mkdir(root, { recursive: true });
        const isRepo = await access(join(root, '.git')).then(
          () => true,
          () => false,
        );
        if (!isRepo) {
          const entries = (await readdir(root)).filter((name) => name !== '.org');
          if (entries.length > 0) {
            throw new OrgError(
              'invalid_request',
              `--skills-remote needs ${root} to be empty or a clone of ${url}; it holds files of its own (push them to the remote first, then start again with an empty folder)`,
            );
          }
          // A new clone starts on main (not the machine's init.defaultBranch): an empty remote
          // advertises no branch, and the first push names the branch everyone then shares.
          await runGit(root, ['init', '--quiet', '--initial-branch=main']);
          await git('remote', 'add', 'origin', url);
        } else {
          const current = (await git('remote', 'get-url', 'origin').catch(() => '')).trim();
          if (!current) await git('remote', 'add', 'origin', url);
          else if (current !== url) await git('remote', 'set-url', 'origin', url);
        }
        // The remote's default branch, else the one this clone is on, else main.
        const symref = await git('ls-remote', '--symref', 'origin', 'HEAD').catch((error: unknown) => {
          throw new OrgError('unavailable', `the skills remote ${url} cannot be reached`, { cause: error });
        });
        const advertised = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(symref)?.[1];
        const local = (await git('symbolic-ref', '--quiet', '--short', 'HEAD').catch(() => '')).trim();
        branch = advertised ?? (local || 'main');
        await fetch();
        const remote = await revParse(`origin/${branch}`);
        if (local !== branch) await git('symbolic-ref', 'HEAD', `refs/heads/${branch}`);
        const head = await revParse('HEAD');
        if (remote && !head) await git('reset', '--quiet', '--hard', remote);
        else if (remote && head) await rebase();
        await git('branch', '--quiet', '--set-upstream-to', `origin/${branch}`).catch(() => undefined);
      }),

    publish: (files, message) =>
      mutex.run(LOCK, async () => {
        const paths = files.map((file) => relative(root, file));
        await git('add', '-A', '--', ...paths);
        const staged = (await git('diff', '--cached', '--name-only', '--', ...paths)).trim();
        if (staged === '') return;
        await gitAs('commit', '--quiet', '--no-verify', '-m', message, '--', ...paths);
        // The versions this write carries, to keep them if the remote refuses them.
        const refused = new Map<string, string>();
        for (const path of paths) {
          const text = await git('show', `HEAD:${path}`).catch(() => undefined);
          if (text !== undefined) refused.set(path, text);
        }
        const giveUp = async (error: OrgError): Promise<never> => {
          const local = await revParse('HEAD');
          await resetToRemote();
          throw new PublishRefused(error, await changedBetween(local, await revParse('HEAD')));
        };
        try {
          await pushWithRetries(async (conflicts) => {
            await resetToRemote();
            const kept = await keepRefused(conflicts, refused).catch(() => [] as string[]);
            const slugs = conflicts.map((path) => basename(path, '.md'));
            const error = conflict(
              `skill ${slugs.join(', ')} was changed on the skills remote meanwhile; the remote's version is live and yours was kept as ${kept.join(', ') || 'nothing (it could not be saved)'}`,
            );
            throw new PublishRefused(
              new OrgError('conflict', error.message, { extra: { kept } }),
              paths.filter((path) => !path.includes('/')),
            );
          });
        } catch (error) {
          if (error instanceof PublishRefused) throw error;
          if (error instanceof OrgError) return giveUp(error);
          return giveUp(new OrgError('unavailable', 'the skills remote refused the write; nothing was changed', { cause: error }));
        }
      }),

    pull: () =>
      mutex.run(LOCK, async () => {
        const before = await revParse('HEAD');
        await fetch();
        const remote = await revParse(`origin/${branch}`);
        if (!remote || remote === before) return { changed: [], commit: before };
        if (!before) await git('reset', '--quiet', '--hard', remote);
        else {
          const { conflicts } = await rebase();
          // Local commits that no longer apply lose to the remote (an API write pushes at once, so these are strays).
          if (conflicts.length > 0) await git('reset', '--quiet', '--hard', remote);
        }
        const after = await revParse('HEAD');
        if (after !== remote) await push().catch(() => undefined);
        return { changed: await changedBetween(before, after), commit: after };
      }),

    head: () => revParse('HEAD'),
  };
}
