/**
 * Private modes of service state (issue 28, finding 17). Everything org keeps under
 * `<home>/.org/` — histories, artifacts, the search log, outbox `.eml` files carrying
 * invite tokens, key and user records — and the CLI's credentials is its owner's alone:
 * files 0600, folders 0700. The modes are asked for when a file or folder is created
 * (see safe-fs.ts: a creation mode can only lose bits to the umask, never gain them, and
 * atomic writes set theirs explicitly), and a home made by an earlier version, whose
 * state folder is not 0700 yet, has its whole state tree tightened once at start-up.
 */
import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Mode of every file org creates in a private folder. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of every folder org creates in a private folder. */
export const PRIVATE_DIR_MODE = 0o700;

/** True when `dir` exists and already has the private folder mode. */
export async function isPrivateDir(dir: string): Promise<boolean> {
  try {
    return ((await lstat(dir)).mode & 0o777) === PRIVATE_DIR_MODE;
  } catch {
    return false;
  }
}

/**
 * Gives every file below `dir` mode 0600 and every folder 0700, `dir` itself last (so an
 * interrupted pass is done again at the next start). Links are neither followed nor
 * changed. Returns how many entries had their mode changed.
 */
export async function tightenTree(dir: string): Promise<number> {
  let changed = 0;
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        await walk(path);
        changed += await tighten(path, PRIVATE_DIR_MODE);
      } else if (entry.isFile()) {
        changed += await tighten(path, PRIVATE_FILE_MODE);
      }
    }
  };
  await walk(dir);
  return changed + (await tighten(dir, PRIVATE_DIR_MODE));
}

/** Sets `mode` on `path` when it differs (not through a link); 1 when changed. */
async function tighten(path: string, mode: number): Promise<number> {
  const info = await lstat(path).catch(() => undefined);
  if (!info || info.isSymbolicLink() || (info.mode & 0o777) === mode) return 0;
  await chmod(path, mode);
  return 1;
}
