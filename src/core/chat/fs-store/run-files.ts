/**
 * Run event files: `.org/runs/<first two characters>/<run_id>.sse`, a `text/event-stream`
 * as the run's subscribers received it. The first frame is a comment holding the run's
 * location (`: {"run_id":…,"structure_id":…,"node_id":…,"role_id":…}`), each further frame
 * one numbered event (`id: <n>`, `data: <event json>`, blank line): the bytes published
 * to the streams are the bytes written, with no second form of each event to build, and
 * any SSE reader replays the file as it is (the comment is skipped).
 *
 * Earlier versions wrote `<run_id>.jsonl`: the location on the first line, then one
 * `{"seq":<n>,"event":<event json>}` line per event. Such files are still read; the
 * runs left open in that form are rewritten in the new one at start-up
 * (`prepareOpenRun`), before anything is appended to them.
 */
import { constants } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import { openNoFollow, readFileSafe, writeAtomic } from '../../storage/index.js';
import { sseFrame, type EncodedEvent } from '../encoded.js';
import { decodeFrames } from '../frames.js';
import type { RunLocation } from '../store.js';

/** The location of a run, as its file's first frame (or an earlier version's first line) holds it. */
export interface RunHeader {
  run_id: string;
  structure_id: string;
  node_id: string;
  role_id: string;
}

/** The two names a run's file may have: the current one and an earlier version's. */
export interface RunFiles {
  /** `<run_id>.sse`: SSE frames. */
  current: string;
  /** `<run_id>.jsonl`: JSON lines, written by earlier versions (read, never appended to). */
  legacy: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The files of a run, or undefined for an id that is not a UUID (never a path). */
export function runFiles(runsDir: string, runId: string): RunFiles | undefined {
  if (!UUID.test(runId)) return undefined;
  const base = join(runsDir, runId.slice(0, 2).toLowerCase(), runId);
  return { current: `${base}.sse`, legacy: `${base}.jsonl` };
}

/** The first frame of a run file: a comment holding the run's location. */
export function headerFrame(where: RunLocation): string {
  const header: RunHeader = { run_id: where.runId, structure_id: where.structureId, node_id: where.nodeId, role_id: where.roleId };
  return `: ${JSON.stringify(header)}\n\n`;
}

/** The frames of events that exist as objects (a migration's, a conversion's). */
export function eventFrames(events: readonly EncodedEvent[]): string {
  let text = '';
  for (const event of events) text += sseFrame(event);
  return text;
}

function toLocation(header: RunHeader): RunLocation {
  return { runId: header.run_id, structureId: header.structure_id, nodeId: header.node_id, roleId: header.role_id };
}

/** Reads the location of a run from its file (either form); undefined when the file does not exist. */
async function readHeaderOf(file: string): Promise<RunLocation | undefined> {
  let handle;
  try {
    handle = await openNoFollow(file, constants.O_RDONLY);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const start = buffer.toString('utf8', 0, bytesRead);
    // `: {…}`, a comment, in a current file; `{…}`, a line, in an earlier version's.
    const header = start.startsWith(':') ? firstComment(start) : start.slice(0, Math.max(0, start.indexOf('\n')));
    return header ? toLocation(JSON.parse(header) as RunHeader) : undefined;
  } finally {
    await handle.close();
  }
}

/** The first comment of an event stream's start, read with eventsource-parser (undefined before its line ends). */
function firstComment(text: string): string | undefined {
  let comment: string | undefined;
  createParser({ onComment: (value) => (comment ??= value) }).feed(text);
  return comment;
}

/** Reads a run's location; undefined when it has no file. */
export async function readHeader(files: RunFiles): Promise<RunLocation | undefined> {
  return (await readHeaderOf(files.current)) ?? readHeaderOf(files.legacy);
}

/** The events of a run after `afterSeq`, from whichever file it has (a torn last record is skipped). */
export async function readEvents(files: RunFiles, afterSeq: number): Promise<EncodedEvent[]> {
  const current = await readText(files.current);
  if (current !== undefined) return parseFrames(current, afterSeq);
  const legacy = await readText(files.legacy);
  return legacy === undefined ? [] : parseLines(legacy, afterSeq);
}

/** The text of a file; undefined when it does not exist. */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFileSafe(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** The events of a current run file's text after `afterSeq` (its location comment and an unfinished last frame are skipped). */
export function parseFrames(text: string, afterSeq: number): EncodedEvent[] {
  const events = decodeFrames(text);
  return afterSeq > 0 ? events.filter((event) => event.seq > afterSeq) : events;
}

/** The events of an earlier version's run file after `afterSeq` (its location line and a torn last line skipped). */
export function parseLines(text: string, afterSeq: number): EncodedEvent[] {
  const events: EncodedEvent[] = [];
  const lines = text.split('\n');
  // The location, then one record per line; the last piece is empty, or a torn record.
  for (const line of lines.slice(1, -1)) {
    let record: { seq?: unknown; event?: { type?: unknown } };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      continue; // not a record (the file was written by hand, or damaged)
    }
    const { seq, event } = record;
    if (typeof seq !== 'number' || seq <= afterSeq || typeof event?.type !== 'string') continue;
    events.push({ seq, type: event.type as EncodedEvent['type'], json: JSON.stringify(event) });
  }
  return events;
}

/**
 * Readies the file of a run a stopped process left open (`where`, from the journal) for
 * appends: a run kept in an earlier version's file is rewritten in the current form, and
 * a file without its location (torn by a crash before anything followed it) gets it.
 * The new file is written whole (atomically) before an old one is removed, so a crash in
 * between leaves both, the new one read first, and the next start only removes the old.
 */
export async function prepareOpenRun(files: RunFiles, where: RunLocation): Promise<void> {
  const legacy = await readText(files.legacy);
  const current = await readText(files.current);
  if (current === undefined || !current.startsWith(': ') || current.indexOf('\n\n') < 0) {
    // Nothing whole follows a torn location: the events come after it is on disk.
    await writeAtomic(files.current, headerFrame(where) + (legacy === undefined ? '' : eventFrames(parseLines(legacy, 0))));
  }
  if (legacy !== undefined) await unlink(files.legacy);
}

/** True for a missing file (or a missing folder on its path). */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
