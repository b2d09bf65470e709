/**
 * Git commits of skill writes (`org serve --commit`), kept until they succeed. A commit
 * that fails (a stale `.git/index.lock`, a full disk, a hook-less repository that
 * refuses) stays pending: it is retried with growing pauses and before every later
 * commit, in order, and until then each of its files is reported as a problem of the
 * library (`GET /api/org/knowledge/problems`) and counted in health.
 */
import { relative } from 'node:path';
import type { SkillProblem } from '../schemas/skills.js';
import { errorFields, type Log } from '../util/log.js';
import { commitSkillChange } from './git.js';

/** Pauses between retries of a failed commit, in ms; the last one repeats. */
export const COMMIT_RETRY_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000] as const;

/** Commits skill writes and retries the ones that failed. */
export interface CommitQueue {
  /** Commits `files` with `message` after any pending commits; a failure keeps it pending (never throws). */
  commit(files: string[], message: string): Promise<void>;
  /** Tries the pending commits now. */
  retry(): Promise<void>;
  /** One problem per file whose write is not committed yet. */
  problems(): SkillProblem[];
  /** Files whose writes are not committed yet. */
  pendingFiles(): number;
  /** Stops retrying (pending commits stay uncommitted). */
  close(): void;
}

interface Pending {
  files: string[];
  message: string;
  attempts: number;
  error: string;
}

export interface CommitQueueOptions {
  /** The skills folder. */
  root: string;
  log: Log;
  /** Pauses between retries (default COMMIT_RETRY_DELAYS_MS). */
  delaysMs?: readonly number[];
  /** Commits (default: `commitSkillChange`); injectable for tests. */
  commitChange?: (root: string, files: string[], message: string) => Promise<unknown>;
}

/** Shortens absolute paths in git's messages to their last two segments (`.git/index.lock`). */
function withoutPaths(message: string): string {
  const line = message.split('\n').find((text) => /^(fatal|error):/.test(text.trim())) ?? message.split('\n')[0] ?? message;
  return line.trim().replace(/(?:\/[^\s'"/]+)+/g, (path) => path.split('/').slice(-2).join('/'));
}

/** Creates the commit queue of a skill store. */
export function createCommitQueue(options: CommitQueueOptions): CommitQueue {
  const delays = options.delaysMs ?? COMMIT_RETRY_DELAYS_MS;
  const commitChange = options.commitChange ?? commitSkillChange;
  const pending: Pending[] = [];
  let chain: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  /** Commits pending entries in order; stops at the first that fails and schedules a retry. */
  const drain = async (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (pending.length > 0) {
      const next = pending[0]!;
      try {
        await commitChange(options.root, next.files, next.message);
      } catch (error) {
        next.attempts++;
        next.error = withoutPaths(errorFields(error).error as string);
        options.log(next.attempts === 1 ? 'warn' : 'debug', 'skill commit failed; retrying', { message: next.message, attempts: next.attempts, error: next.error });
        if (!closed) {
          timer = setTimeout(() => queue.retry().catch((error: unknown) => options.log('error', 'skill commit retry failed', errorFields(error))), delays[Math.min(next.attempts - 1, delays.length - 1)]);
          timer.unref();
        }
        return;
      }
      pending.shift();
      if (next.attempts > 0) options.log('info', 'skill commit succeeded after retrying', { message: next.message, attempts: next.attempts + 1 });
    }
  };

  const run = (): Promise<void> => {
    chain = chain.then(drain, drain);
    return chain;
  };

  const queue: CommitQueue = {
    commit(files, message) {
      pending.push({ files, message, attempts: 0, error: '' });
      return run();
    },
    retry: run,
    problems() {
      return pending.filter((entry) => entry.attempts > 0).flatMap((entry) =>
        entry.files.map((file) => ({
          file: relative(options.root, file),
          message: `write not committed to git after ${entry.attempts} attempt${entry.attempts === 1 ? '' : 's'} (${entry.error}); org keeps retrying`,
        })),
      );
    },
    pendingFiles: () => new Set(pending.flatMap((entry) => entry.files)).size,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
  return queue;
}
