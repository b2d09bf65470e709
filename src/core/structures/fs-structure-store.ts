/**
 * The filesystem `StructureStore`: each structure is a folder `.org/structures/<id>/`
 * with a base `structure.json` and an append-only journal `changes.jsonl`. A change
 * costs one group-committed append (not a rewrite of the whole structure); once the
 * journal has grown past its base, a new base is written atomically, naming the last
 * change and the journal length it includes. The journal itself is never cut: it is
 * also every node's activity timeline.
 */
import { readdir, readFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { isOrgError } from '../errors.js';
import { GroupFile, readJsonl, removeStaleTemps, writeAtomic } from '../storage/index.js';
import { applyChange, nodeIndex, type JournalEntry } from './changes.js';
import { timelineEntry, type StructureStore, type TimelineEntry } from './structure-store.js';
import type { StructureRecord } from './types.js';

export interface FsStructureStoreOptions {
  /** `.org/structures` */
  dir: string;
  /** Journal bytes past the base after which a new base is written (default 256 KiB, at least the base's size). */
  compactBytes?: number;
}

/** The base file: the record plus where in the journal it stands. */
interface BaseFile extends StructureRecord {
  /** The last journal entry the base includes (0: none). */
  seq?: number;
  /** Journal bytes the base includes. */
  journal_bytes?: number;
}

interface Journal {
  file: GroupFile;
  /** Bytes of the journal on disk (after acknowledged appends). */
  bytes: number;
  /** Bytes included in the base. */
  baseBytes: number;
  /** Size of the base file, for the compaction threshold. */
  baseSize: number;
}

/** A journal is kept open while it is written to, and closed after a second without writes (so that open files stay few). */
const JOURNAL_FILE = { closeWhenIdleMs: 1000 } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createFsStructureStore(options: FsStructureStoreOptions): StructureStore {
  const journals = new Map<string, Journal>();
  const compactBytes = options.compactBytes ?? 256 * 1024;
  const baseFile = (id: string) => join(options.dir, id, 'structure.json');
  const journalFile = (id: string) => join(options.dir, id, 'changes.jsonl');

  const readOne = async (id: string): Promise<{ record: StructureRecord; seq: number } | undefined> => {
    await removeStaleTemps(baseFile(id));
    const baseText = await readText(baseFile(id));
    if (baseText === undefined) return undefined;
    const base = JSON.parse(baseText) as BaseFile;
    if (base.id !== id) return undefined;
    const { seq: baseSeq = 0, journal_bytes: baseBytes = 0, ...record } = base;
    const journal = Buffer.from((await readText(journalFile(id))) ?? '', 'utf8');
    let bytes = baseBytes;
    let seq = baseSeq;
    const byId = nodeIndex(record);
    for (let start = baseBytes; start < journal.length; ) {
      const end = journal.indexOf(0x0a, start);
      if (end < 0) break; // a line torn by a crash: cut when the journal is next appended to
      const line = journal.subarray(start, end).toString('utf8');
      start = bytes = end + 1;
      if (!line) continue;
      const entry = JSON.parse(line) as JournalEntry;
      if (entry.seq <= seq) continue;
      applyChange(record, entry.change, byId);
      seq = entry.seq;
    }
    journals.set(id, { file: new GroupFile(journalFile(id), JOURNAL_FILE), bytes, baseBytes, baseSize: Buffer.byteLength(baseText) });
    return { record, seq };
  };

  const writeBase = async (record: StructureRecord, journal: Journal, seq: number) => {
    const text = `${JSON.stringify({ ...record, seq, journal_bytes: journal.bytes } satisfies BaseFile, null, 2)}\n`;
    await writeAtomic(baseFile(record.id), text, 0o600);
    journal.baseBytes = journal.bytes;
    journal.baseSize = Buffer.byteLength(text);
  };

  return {
    async loadAll() {
      const records: { record: StructureRecord; seq: number }[] = [];
      let names: string[] = [];
      try {
        names = (await readdir(options.dir, { withFileTypes: true })).filter((entry) => entry.isDirectory() && !entry.isSymbolicLink()).map((entry) => entry.name);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      for (const name of names.filter((candidate) => UUID.test(candidate))) {
        try {
          const loaded = await readOne(name);
          if (loaded) records.push(loaded);
        } catch (error) {
          // A folder without structure.json is a creation interrupted before its atomic write.
          if (!isOrgError(error) && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      return records;
    },

    load: (id) => (UUID.test(id) ? readOne(id) : Promise.resolve(undefined)),

    async create(record) {
      const journal: Journal = { file: new GroupFile(journalFile(record.id), JOURNAL_FILE), bytes: 0, baseBytes: 0, baseSize: 0 };
      await writeBase(record, journal, 0);
      journals.set(record.id, journal);
    },

    async append(structureId, entries) {
      const journal = journals.get(structureId);
      if (!journal) throw new Error(`structure ${structureId} is not loaded`);
      const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
      await journal.file.append(text);
      journal.bytes += Buffer.byteLength(text);
    },

    async applied(record, seq) {
      const journal = journals.get(record.id);
      if (journal && journal.bytes - journal.baseBytes > Math.max(compactBytes, journal.baseSize)) await writeBase(record, journal, seq);
    },

    async journal(structureId) {
      if (!UUID.test(structureId)) return [];
      return readJsonl<JournalEntry>(journalFile(structureId));
    },

    async restore(record, seq, entries) {
      const text = entries.map((entry) => `${JSON.stringify(entry)}\n`).join('');
      // The journal first, then the base naming all of it: until the base lands, the
      // folder holds no structure (loadAll skips a folder without structure.json).
      await writeAtomic(journalFile(record.id), text, 0o600);
      const journal: Journal = { file: new GroupFile(journalFile(record.id), JOURNAL_FILE), bytes: Buffer.byteLength(text), baseBytes: 0, baseSize: 0 };
      await writeBase(record, journal, seq);
      journals.set(record.id, journal);
    },

    async timeline(structureId, nodeId) {
      if (!UUID.test(structureId) || !UUID.test(nodeId)) return [];
      // Timelines of an earlier version were kept per node.
      const legacy = await readJsonl<TimelineEntry>(join(options.dir, structureId, 'nodes', nodeId, 'timeline.jsonl'));
      const entries = (await readJsonl<JournalEntry>(journalFile(structureId))).filter((entry) => entry.node_id === nodeId);
      return [...legacy.map(({ type, actor, at }) => ({ type, actor, at })), ...entries.map(timelineEntry)];
    },

    async close() {
      await Promise.all([...journals.values()].map((journal) => journal.file.close()));
      journals.clear();
    },
  };
}

/** Reads a text file that must not be a symbolic link; undefined when absent. */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
