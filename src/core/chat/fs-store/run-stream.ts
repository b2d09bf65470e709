/**
 * A run's stored events as a stream of SSE frame bytes, read from its file a chunk at a
 * time: replaying a run (`GET …/runs/{id}/events`) holds at most a chunk and the largest
 * single event in memory, however long the run, where reading the file whole held it
 * several times over (the text, its events, the joined answer) for every replay at once.
 *
 * The current form (`.sse`) is passed on as it is stored, its location comment and the
 * frames up to `afterSeq` skipped; an earlier version's file (`.jsonl`) is turned into
 * frames line by line. A torn last record (a crash mid-write) is left out, as the whole-file
 * readers do.
 */
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openNoFollow } from '../../storage/index.js';
import type { RunFiles } from './run-files.js';
import { isMissing } from './run-files.js';

/** Bytes read from the file at a time. */
const CHUNK_BYTES = 64 * 1024;
const LF = 0x0a;
const COLON = 0x3a;
const FRAME_END = Buffer.from('\n\n');
const LINE_END = Buffer.from('\n');

async function openIfPresent(file: string): Promise<FileHandle | undefined> {
  try {
    return await openNoFollow(file, constants.O_RDONLY);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * The records of a file that end with `delimiter` (delimiter included), as they are
 * completed by each chunk read. A record longer than a chunk is joined once, when its
 * end arrives (not once per chunk); an unfinished last record is never yielded.
 */
async function* records(handle: FileHandle, delimiter: Buffer): AsyncGenerator<Buffer[]> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of handle.createReadStream({ highWaterMark: CHUNK_BYTES, autoClose: false }) as AsyncIterable<Buffer>) {
    // Does this chunk complete a record? Its delimiter may also begin in the pending bytes.
    const spansBoundary = delimiter.length === 2 && pendingBytes > 0 && chunk[0] === delimiter[1] && pending.at(-1)!.at(-1) === delimiter[0];
    if (!spansBoundary && chunk.indexOf(delimiter) < 0) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      continue;
    }
    const buffer = pendingBytes > 0 ? Buffer.concat([...pending, chunk], pendingBytes + chunk.length) : chunk;
    pending = [];
    pendingBytes = 0;
    const out: Buffer[] = [];
    let start = 0;
    for (;;) {
      const found = buffer.indexOf(delimiter, start);
      if (found < 0) break;
      out.push(buffer.subarray(start, found + delimiter.length));
      start = found + delimiter.length;
    }
    if (start < buffer.length) {
      pending.push(buffer.subarray(start));
      pendingBytes = buffer.length - start;
    }
    if (out.length > 0) yield out;
  }
}

/** The sequence number of a frame `id: <n>\n…`. */
function seqOf(frame: Buffer): number {
  return Number(frame.toString('latin1', 4, frame.indexOf(LF)));
}

/** The frames of a current run file after `afterSeq`. */
async function* currentFrames(handle: FileHandle, afterSeq: number): AsyncGenerator<Buffer> {
  for await (const batch of records(handle, FRAME_END)) {
    const kept = batch.filter((frame) => frame[0] !== COLON && (afterSeq <= 0 || seqOf(frame) > afterSeq));
    if (kept.length > 0) yield kept.length === 1 ? kept[0]! : Buffer.concat(kept);
  }
}

const LINE = /^\{"seq":(\d+),"event":/;

/** The frames of an earlier version's run file (`{"seq":n,"event":…}` lines after the location line) after `afterSeq`. */
async function* legacyFrames(handle: FileHandle, afterSeq: number): AsyncGenerator<Buffer> {
  let first = true;
  for await (const batch of records(handle, LINE_END)) {
    let text = '';
    for (const line of batch) {
      if (first) {
        first = false;
        continue;
      }
      const record = line.toString('utf8', 0, line.length - 1);
      const match = LINE.exec(record);
      if (!match || !record.endsWith('}')) continue;
      const seq = Number(match[1]);
      if (seq > afterSeq) text += `id: ${seq}\ndata: ${record.slice(match[0].length, -1)}\n\n`;
    }
    if (text) yield Buffer.from(text, 'utf8');
  }
}

/**
 * The SSE frames of a run's events after `afterSeq`, from whichever file it has, a chunk
 * at a time; nothing when it has no file. The file is closed when the iteration ends,
 * also when the caller stops early.
 */
export async function* readEventFrames(files: RunFiles, afterSeq: number): AsyncGenerator<Buffer> {
  const current = await openIfPresent(files.current);
  const handle = current ?? (await openIfPresent(files.legacy));
  if (!handle) return;
  try {
    yield* current ? currentFrames(handle, afterSeq) : legacyFrames(handle, afterSeq);
  } finally {
    await handle.close();
  }
}
