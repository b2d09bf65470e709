/**
 * The file signatures of a skills folder (size and mtime of every `*.md`), taken by a
 * worker thread while the caller does other work: `org serve` starts it before it loads
 * the server's modules, so that a warm start, which compares every file with the index
 * snapshot, finds the 10,000 `lstat`s already done on the other core instead of doing
 * them on its own thread after the listen.
 *
 * Freshness: a watch on the folder is placed before the worker stats anything, and every
 * name it reports is handed over as changed (the loader stats those again itself). The
 * store's own watcher is in place before the signatures are taken (see `take`), so a
 * file changed at any moment is either stat'ed after its change, named by this watch,
 * or reported to the store by its watcher. The prefetch is an accelerator only: when
 * anything fails (no folder yet, no worker, no watch) the load stats every file itself.
 */
import { watch, type FSWatcher } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker, type MessagePort } from 'node:worker_threads';
import type * as nodeFs from 'node:fs';
import type * as nodePath from 'node:path';
import type { FileSignature } from './skill-file.js';

type FsModule = typeof nodeFs;
type PathModule = typeof nodePath;

/** Signatures of the folder's `*.md` entries as the worker found them, by file name. */
export interface PrefetchedSignatures {
  /** The signature of `name` when it was stat'ed and has not been reported changed since. */
  signature(name: string): FileSignature | undefined;
  /** Names whose signature is known (tests, logs). */
  readonly size: number;
}

/** A running prefetch of one folder. */
export interface LibraryPrefetch {
  /** The folder it reads. */
  readonly root: string;
  /** Resolves once the worker has answered or failed (tests). */
  readonly done: Promise<void>;
  /**
   * Waits for the worker, ends the watch and returns the signatures (undefined when the
   * prefetch failed). Call it once the store's own watcher is in place: names reported
   * after this are that watcher's.
   */
  take(): Promise<PrefetchedSignatures | undefined>;
  /** Ends the watch and the worker without taking anything. */
  close(): void;
}

/**
 * What the worker posts: the names, one per line (one string is copied between threads
 * at once, 10,000 strings one by one), and at the same positions mtimes and sizes.
 */
interface StatMessage {
  names: string;
  mtimes: Float64Array;
  sizes: Float64Array;
}

/**
 * The worker's whole job, run from its source text (`toString`) so that the worker needs
 * no module of its own (and starts in a few milliseconds): list the folder, `lstat` each
 * `*.md` entry that is a file or a link (a link is never followed; the loader never
 * reuses one anyway), post the columns. It uses only its parameters.
 */
function statFolder(fs: FsModule, path: PathModule, port: MessagePort, root: string): void {
  const names: string[] = [];
  const mtimes: number[] = [];
  const sizes: number[] = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    // A name with a line feed is never a skill (not a valid slug), and would split in two below.
    if (!entry.name.endsWith('.md') || entry.name.includes('\n') || !(entry.isFile() || entry.isSymbolicLink())) continue;
    const info = fs.lstatSync(path.join(root, entry.name), { throwIfNoEntry: false });
    if (!info || !(info.isFile() || info.isSymbolicLink())) continue;
    names.push(entry.name);
    mtimes.push(info.mtimeMs);
    sizes.push(info.size);
  }
  const message = { names: names.join('\n'), mtimes: Float64Array.from(mtimes), sizes: Float64Array.from(sizes) };
  port.postMessage(message, [message.mtimes.buffer, message.sizes.buffer]);
}

/** The worker's script: the Node modules it needs, then {@link statFolder}. */
function workerScript(root: string): string {
  return [
    "const { parentPort } = require('node:worker_threads');",
    `(${statFolder.toString()})(require('node:fs'), require('node:path'), parentPort, ${JSON.stringify(root)});`,
  ].join('\n');
}

/** Starts the prefetch of `root` (an absolute path). Never throws: a failure only means no prefetch. */
export function prefetchLibrary(root: string): LibraryPrefetch {
  const changed = new Set<string>();
  let watcher: FSWatcher | undefined;
  let worker: Worker | undefined;
  let failed = false;
  try {
    // Not persistent: the prefetch never keeps the process alive. Placed before the worker starts.
    watcher = watch(root, { persistent: false, encoding: 'utf8' }, (_event, name) => {
      // Without a name nothing can be trusted: every signature is taken again.
      if (name) changed.add(name);
      else failed = true;
    });
    watcher.on('error', () => {
      failed = true;
    });
    worker = new Worker(workerScript(root), { eval: true });
    worker.unref();
  } catch {
    failed = true;
  }
  const result = new Promise<StatMessage | undefined>((resolve) => {
    if (!worker) return resolve(undefined);
    worker.once('message', (message: StatMessage) => resolve(message));
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
  const close = (): void => {
    watcher?.close();
    watcher = undefined;
    worker?.terminate().catch(() => undefined);
  };
  return {
    root,
    done: result.then(() => undefined),
    async take() {
      const message = await result;
      // Events of changes made before this call may still wait in the watch's queue:
      // after two turns of the event loop, a poll for I/O has run since the call.
      await nextTurn();
      await nextTurn();
      close();
      if (!message || failed) return undefined;
      const at = new Map<string, number>();
      if (message.names.length > 0) {
        message.names.split('\n').forEach((name, i) => {
          if (!changed.has(name)) at.set(name, i);
        });
      }
      return {
        size: at.size,
        signature(name) {
          const i = at.get(name);
          return i === undefined ? undefined : { mtimeMs: message.mtimes[i] as number, size: message.sizes[i] as number };
        },
      };
    },
    close,
  };
}
