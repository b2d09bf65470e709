/**
 * The skill gap log: every chat search is appended to `<stateDir>/search-log.jsonl`
 * (message excerpt, top candidates, the skill chosen or none, how strong the best match
 * was), and the gap report groups the recent messages that matched nothing or only
 * weakly, most frequent first, so a person sees which skills to write next.
 *
 * The log is an aid, not a record anyone relies on: appends are queued and never slow
 * or fail a chat turn (a failed append is reported to the logger), a line torn by a crash
 * is ended and skipped by readers, nothing is read or written through a link,
 * and a file grown past its size cap keeps only its newer half.
 */
import { constants } from 'node:fs';
import { join } from 'node:path';
import { appendJsonl, lstatOrUndefined, openNoFollow, readFileSafe, readJsonl, writeAtomic } from '../../storage/index.js';
import type { SkillGap } from '../../schemas/skills.js';
import { queryWords } from './analysis.js';

/** How a recorded search ended. */
export type SearchOutcome = 'matched' | 'weak' | 'none';

/** One recorded chat search. */
export interface SearchLogEntry {
  /** ISO 8601 time of the search. */
  at: string;
  structure_id: string | null;
  /** The message, cut to {@link EXCERPT}. */
  message: string;
  /** The message's content words, stemmed, sorted: messages with the same key form one gap. */
  key: string;
  outcome: SearchOutcome;
  /** The slug the agent got first, or null. */
  chosen: string | null;
  /** The best candidates, kept or not, with their scores. */
  top: { slug: string; score: number }[];
}

export type { SkillGap };

/** Options of {@link SearchLog.gaps}. */
export interface GapQuery {
  /** Only searches of this structure; all when omitted. */
  structureId?: string;
  /** Only searches at or after this time (default: 30 days before now). */
  since?: Date;
  /** Most groups returned (default 50). */
  limit?: number;
}

/** The gap log of one home. */
export interface SearchLog {
  /** Queues one search for appending (never throws). */
  record(entry: Omit<SearchLogEntry, 'key' | 'at'>): void;
  /** The grouped report of recent searches that matched nothing or weakly. */
  gaps(query?: GapQuery): Promise<SkillGap[]>;
  /** Resolves once every queued append is written. */
  flush(): Promise<void>;
}

/** Longest message excerpt kept. */
export const EXCERPT = 300;
/** Size past which the log keeps only its newer half. */
const MAX_BYTES = 8 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The grouping key of a message: its distinct stems, sorted. */
export function gapKey(message: string): string {
  return [...new Set(queryWords(message).map((w) => w.stem))].sort().join(' ');
}

/** Path of the log file. */
export function searchLogPath(stateDir: string): string {
  return join(stateDir, 'search-log.jsonl');
}

/** Opens the log of `stateDir`. */
export function createSearchLog(options: { stateDir: string; clock: () => Date; onError: (error: unknown) => void }): SearchLog {
  const file = searchLogPath(options.stateDir);
  let queue: Promise<void> = trim(file)
    .then(() => endLine(file))
    .catch(options.onError);

  return {
    record(entry) {
      const line: SearchLogEntry = { at: options.clock().toISOString(), ...entry, message: entry.message.slice(0, EXCERPT), key: gapKey(entry.message) };
      queue = queue
        .then(() => appendJsonl(file, line))
        .catch(options.onError);
    },
    async gaps(query = {}) {
      await queue;
      const since = (query.since ?? new Date(options.clock().getTime() - 30 * DAY_MS)).toISOString();
      const groups = new Map<string, SkillGap>();
      for (const entry of await readEntries(file)) {
        if (entry.outcome === 'matched' || entry.at < since || entry.key === '') continue;
        if (query.structureId !== undefined && entry.structure_id !== query.structureId) continue;
        const group = groups.get(entry.key);
        if (!group) {
          groups.set(entry.key, {
            key: entry.key,
            count: 1,
            outcome: entry.outcome,
            first_seen: entry.at,
            last_seen: entry.at,
            example: entry.message,
            messages: [entry.message],
            candidates: entry.top,
          });
          continue;
        }
        group.count++;
        if (entry.outcome === 'weak') group.outcome = 'weak';
        if (entry.at < group.first_seen) group.first_seen = entry.at;
        if (entry.at >= group.last_seen) {
          group.last_seen = entry.at;
          group.example = entry.message;
          group.candidates = entry.top;
          group.messages = [entry.message, ...group.messages.filter((m) => m !== entry.message)].slice(0, 3);
        } else if (!group.messages.includes(entry.message) && group.messages.length < 3) group.messages.push(entry.message);
      }
      return [...groups.values()]
        .sort((a, b) => b.count - a.count || (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0))
        .slice(0, query.limit ?? 50);
    },
    async flush() {
      await queue;
    },
  };
}

/** Every well-formed entry of the log (a torn or foreign line is skipped). */
async function readEntries(file: string): Promise<SearchLogEntry[]> {
  const lines = await readJsonl<Partial<SearchLogEntry> | null>(file, { skipMalformed: true });
  return lines.filter(
    (value): value is SearchLogEntry =>
      typeof value?.at === 'string' && typeof value.key === 'string' && typeof value.message === 'string' && Array.isArray(value.top),
  );
}

/** Ends a line torn by a crash, so that the next entry starts on a line of its own (readers skip the torn one). */
async function endLine(file: string): Promise<void> {
  let handle;
  try {
    handle = await openNoFollow(file, constants.O_RDWR | constants.O_APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] !== 0x0a) await handle.write('\n');
  } finally {
    await handle.close();
  }
}

/** Keeps the newer half of a log grown past its cap (whole lines only). */
async function trim(file: string): Promise<void> {
  const size = (await lstatOrUndefined(file))?.size ?? 0;
  if (size <= MAX_BYTES) return;
  const text = await readFileSafe(file, 'utf8');
  const cut = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
  await writeAtomic(file, text.slice(cut));
}
