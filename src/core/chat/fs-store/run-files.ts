/**
 * Run event files: `.org/runs/<first two characters>/<run_id>.jsonl`. The first line is
 * the run's location, each further line one numbered event, written as
 * `{"seq":<n>,"event":<event json>}` so the event's own JSON text can be cut out again
 * without parsing it.
 */
import { constants } from 'node:fs';
import { join } from 'node:path';
import { openNoFollow, readFileSafe } from '../../storage/index.js';
import { historyLine, type EncodedEvent } from '../encoded.js';
import type { RunLocation } from '../store.js';
import type { EventInput } from '../types.js';

/** The header line of a run file. */
export interface RunHeader {
  run_id: string;
  structure_id: string;
  node_id: string;
  role_id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The file of a run, or undefined for an id that is not a UUID (never a path). */
export function runFilePath(runsDir: string, runId: string): string | undefined {
  if (!UUID.test(runId)) return undefined;
  return join(runsDir, runId.slice(0, 2).toLowerCase(), `${runId}.jsonl`);
}

/** The header line of a run file. */
export function headerLine(where: RunLocation): string {
  const header: RunHeader = { run_id: where.runId, structure_id: where.structureId, node_id: where.nodeId, role_id: where.roleId };
  return `${JSON.stringify(header)}\n`;
}

/** The lines of a batch of events. */
export function eventLines(batch: readonly EncodedEvent[]): string {
  let text = '';
  for (const event of batch) text += historyLine(event);
  return text;
}

function toLocation(header: RunHeader): RunLocation {
  return { runId: header.run_id, structureId: header.structure_id, nodeId: header.node_id, roleId: header.role_id };
}

/** Reads a run's header; undefined when the run file does not exist. */
export async function readHeader(file: string): Promise<RunLocation | undefined> {
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
    const end = buffer.subarray(0, bytesRead).indexOf(0x0a);
    if (end < 0) return undefined;
    return toLocation(JSON.parse(buffer.subarray(0, end).toString('utf8')) as RunHeader);
  } finally {
    await handle.close();
  }
}

/** The events of a run file after `afterSeq` (a torn last line is skipped). */
export async function readEvents(file: string, afterSeq: number): Promise<EncodedEvent[]> {
  let text: string;
  try {
    text = await readFileSafe(file, 'utf8');
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const events: EncodedEvent[] = [];
  let start = text.indexOf('\n') + 1;
  while (start > 0 && start < text.length) {
    const end = text.indexOf('\n', start);
    if (end < 0) break; // torn tail
    const event = parseLine(text.slice(start, end));
    if (event && event.seq > afterSeq) events.push(event);
    start = end + 1;
  }
  return events;
}

const PREFIX = /^\{"seq":(\d+),"event":/;
const TYPE = /^\{"type":"([a-z_]+)"/;

/** Cuts the event JSON out of a line written by `eventLines`. */
export function parseLine(line: string): EncodedEvent | undefined {
  const match = PREFIX.exec(line);
  if (!match || !line.endsWith('}')) return undefined;
  const json = line.slice(match[0].length, -1);
  const type = TYPE.exec(json)?.[1] ?? (JSON.parse(json) as { type: string }).type;
  return { seq: Number(match[1]), type: type as EventInput['type'], json };
}

/** True for a missing file (or a missing folder on its path). */
export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
