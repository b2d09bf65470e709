/**
 * Git plumbing of skill versions: the commits that changed one file (followed across
 * moves), each with the path the file had in it and the blob it held, and the reading of
 * those blobs. Only ids that git itself printed (full blob hashes, checked against their
 * pattern) are handed back to git, on its standard input: nothing a client sends reaches
 * git. A version whose entry is a symbolic link or a
 * submodule (any mode but a regular file) is left out: its "text" would be a link target.
 */
import { execFile } from 'node:child_process';
import { runGit } from './git.js';

/** How many commits of one file are read, newest first (older ones are not listed). */
export const MAX_FILE_COMMITS = 200;

/** One commit that changed a file, with the file as that commit left it. */
export interface FileCommit {
  commit: string;
  author: string;
  /** ISO 8601 author date. */
  date: string;
  message: string;
  /** The file's path in this commit, relative to the top of the work tree. */
  path: string;
  /** The blob the file held after this commit. */
  blob: string;
}

/** A full object id as git prints it (SHA-1 or SHA-256). */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Modes of a regular file in a tree. */
const REGULAR = new Set(['100644', '100755']);

/**
 * The commits that changed `path` (relative to `top`), newest first, following it across
 * renames, at most {@link MAX_FILE_COMMITS}; commits that deleted it are left out, and so
 * are those where it was not a regular file. [] when git fails.
 */
export async function fileCommits(top: string, path: string): Promise<FileCommit[]> {
  let out: string;
  try {
    out = await runGit(top, [
      '-c',
      'core.quotePath=false',
      'log',
      '--follow',
      '--no-abbrev',
      '--raw',
      '--no-color',
      `--max-count=${MAX_FILE_COMMITS}`,
      '--format=%x1e%H%x1f%an <%ae>%x1f%aI%x1f%s',
      '--',
      path,
    ]);
  } catch {
    return [];
  }
  const commits: FileCommit[] = [];
  for (const record of out.split('\x1e')) {
    const [head = '', ...lines] = record.split('\n');
    const [commit = '', author = '', date = '', message = ''] = head.split('\x1f');
    if (!OBJECT_ID.test(commit)) continue;
    // `:<old mode> <new mode> <old blob> <new blob> <status>\t<path>[\t<new path>]`
    const raw = lines.find((line) => line.startsWith(':'));
    if (!raw) continue;
    const [meta = '', ...paths] = raw.split('\t');
    const [, mode = '', , blob = '', status = ''] = meta.slice(1).split(' ');
    const at = paths[paths.length - 1];
    if (status.startsWith('D') || !REGULAR.has(mode) || !OBJECT_ID.test(blob) || !at || at.startsWith('"')) continue;
    commits.push({ commit, author, date: new Date(date).toISOString(), message, path: at, blob });
  }
  return commits;
}

/** The sizes of blobs (ids git printed), in bytes; an id git does not know is absent. */
export async function blobSizes(top: string, blobs: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const ids = [...new Set(blobs)].filter((id) => OBJECT_ID.test(id));
  if (ids.length === 0) return sizes;
  const out = (await gitWithInput(top, ['cat-file', '--batch-check'], `${ids.join('\n')}\n`, 64 * ids.length + 1024)).toString('utf8');
  for (const line of out.split('\n')) {
    const [id = '', type = '', size = ''] = line.split(' ');
    if (type === 'blob' && OBJECT_ID.test(id)) sizes.set(id, Number(size));
  }
  return sizes;
}

/**
 * The texts of blobs (ids git printed) whose sizes the caller checked, read in one git
 * process. `sizes` bounds what is read: the output may not exceed their sum.
 */
export async function readBlobs(top: string, sizes: ReadonlyMap<string, number>): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  const ids = [...sizes.keys()].filter((id) => OBJECT_ID.test(id));
  if (ids.length === 0) return texts;
  const total = ids.reduce((sum, id) => sum + (sizes.get(id) ?? 0) + 128, 0);
  const out = await gitWithInput(top, ['cat-file', '--batch'], `${ids.join('\n')}\n`, total + 1024);
  // Each object: `<id> <type> <size>\n<size bytes>\n`; an unknown one: `<id> missing\n`.
  let at = 0;
  while (at < out.length) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) break;
    const [id = '', type = '', size = ''] = out.subarray(at, end).toString('utf8').split(' ');
    at = end + 1;
    if (type === 'missing' || size === '') continue;
    const length = Number(size);
    if (type === 'blob') texts.set(id, out.subarray(at, at + length).toString('utf8'));
    at += length + 1;
  }
  return texts;
}

/** Runs git with `input` on its standard input and returns its standard output (at most `maxBytes`). */
function gitWithInput(cwd: string, args: string[], input: string, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd, encoding: 'buffer', maxBuffer: maxBytes, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}
