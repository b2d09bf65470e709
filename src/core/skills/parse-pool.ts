/**
 * Parsing a large set of skill files in worker threads, pipelined with the caller:
 * the files are cut into slices, each worker keeps two slices in hand so it never waits
 * for the main thread, and the caller receives the slices in order (so the documents
 * enter the index in the same order, and get the same ids, as a parse on the main thread
 * would give them) while the workers parse the next ones. A worker that fails or cannot
 * start is not fatal: the slices it did not answer are parsed on the main thread.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { parseSlice, type ParsedSlice } from './parsed-file.js';
import type { ParseRequest } from './parse-worker.js';

/** Files per message: large enough to amortise a message, small enough to keep the pipeline full. */
const SLICE = 128;
/** Slices a worker holds at once (one being parsed, one queued). */
const IN_HAND = 2;

/** Starts one parse worker (the compiled entry beside this module; under a TypeScript loader, the source). */
function startWorker(): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    // Sources run through tsx (tests, benchmarks): the worker registers the same loader first.
    const entry = JSON.stringify(new URL('./parse-worker.ts', here).href);
    return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${entry}); });`, { eval: true });
  }
  return new Worker(new URL('./parse-worker.js', here));
}

interface Pending {
  promise: Promise<ParsedSlice | undefined>;
  /** True once settled (by a worker, by the caller's own parse, or as "parse it here"). */
  settled: boolean;
  /** Settles the slice: its files, or undefined for "parse it here". */
  settle(slice: ParsedSlice | undefined): void;
}

function pending(): Pending {
  let resolve!: (slice: ParsedSlice | undefined) => void;
  const promise = new Promise<ParsedSlice | undefined>((done) => {
    resolve = done;
  });
  const entry: Pending = {
    promise,
    settled: false,
    settle(slice) {
      if (entry.settled) return;
      entry.settled = true;
      resolve(slice);
    },
  };
  return entry;
}

/**
 * Parses the file of every skill key with `workerCount` worker threads; yields the
 * parsed slices in the order of `keys`, and returns how many files the workers parsed.
 * With `share`, the caller does not wait idle for the next slice: it parses the last
 * slice no worker has taken yet (a worker warms up slowly, and on 2 cores the caller's
 * thread is half of the machine), and yields it in its turn.
 */
export async function* parseInWorkers(
  root: string,
  keys: readonly string[],
  workerCount: number,
  { share = false }: { share?: boolean } = {},
): AsyncGenerator<ParsedSlice, { inWorkers: number }> {
  const sliceCount = Math.ceil(keys.length / SLICE);
  const slices = Array.from({ length: sliceCount }, pending);
  const sliceOf = (id: number): string[] => keys.slice(id * SLICE, (id + 1) * SLICE);
  let next = 0;
  // With `share`, the caller parses slices from the end while it waits for the workers'.
  let last = sliceCount;
  const parsedHere = new Set<number>();
  const workers: Worker[] = [];
  let alive = 0;
  /** With no worker left, every slice not handed out yet is parsed by the caller. */
  const orphanRest = (): void => {
    for (; next < last; next++) slices[next]?.settle(undefined);
  };

  const launch = (): void => {
    let worker: Worker;
    try {
      worker = startWorker();
    } catch {
      return;
    }
    worker.unref();
    workers.push(worker);
    alive++;
    let dead = false;
    const held = new Set<number>();
    const feed = (): void => {
      while (held.size < IN_HAND && next < last) {
        const id = next++;
        held.add(id);
        worker.postMessage({ id, root, keys: sliceOf(id) } satisfies ParseRequest);
      }
    };
    worker.on('message', (message: { id: number; slice: ParsedSlice }) => {
      held.delete(message.id);
      slices[message.id]?.settle(message.slice);
      feed();
    });
    const fail = (): void => {
      if (dead) return;
      dead = true;
      // The slices it held are parsed by the caller; the others go to the remaining workers.
      for (const id of held) slices[id]?.settle(undefined);
      held.clear();
      if (--alive === 0) orphanRest();
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    feed();
  };

  for (let i = 0; i < Math.max(1, workerCount); i++) launch();
  if (alive === 0) orphanRest();
  try {
    let inWorkers = 0;
    for (let id = 0; id < sliceCount; id++) {
      const slice = slices[id] as Pending;
      // Rather than wait, parse the last slice no worker has taken; its turn comes later.
      while (share && !slice.settled && last > next) {
        last--;
        parsedHere.add(last);
        slices[last]?.settle(parseSlice(root, sliceOf(last)));
        // Lets the workers' answers (and requests) in between two slices parsed here.
        await yieldToEventLoop();
      }
      const parsed = await slice.promise;
      if (parsed && !parsedHere.has(id)) inWorkers += parsed.files.length;
      yield parsed ?? parseSlice(root, sliceOf(id));
    }
    return { inWorkers };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}
