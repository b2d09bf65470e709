/**
 * The filesystem `ChatStore` of a home:
 *
 * - `.org/structures/<id>/nodes/<node_id>/history.jsonl`: a node's messages;
 * - `.org/runs/<xx>/<run_id>.sse`: a run's location and events, as the SSE frames its
 *   streams receive (see run-files.ts), kept open while the run writes and
 *   group-committed (one durable write per batch);
 * - `.org/runs.jsonl`: the journal of runs started and ended, read at start-up to find
 *   runs a stopped process left open, then compacted.
 *
 * Node messages are cached in memory up to a byte budget and a node count (least recently
 * used first out).
 */
import { join } from 'node:path';
import { BoundedCache } from '../../util/bounded-cache.js';
import { headOf } from '../../util/text.js';
import { GroupFile, KeyedMutex, appendJsonl, readJsonl, writeAtomic } from '../../storage/index.js';
import { END_TEXT, type AgentEndRecord, type ChatStore, type MessagePage, type RunEventWriter, type RunLocation, type StoredMessage } from '../store.js';
import { applyRecord, applyRecords, historyFile, loadNodeRecords, type MessageRecord } from './node-messages.js';
import { headerFrame, prepareOpenRun, readEvents, readHeader, runFiles } from './run-files.js';
import { readEventFrames } from './run-stream.js';
import { findRunFiles } from './run-search.js';

export interface FsChatStoreOptions {
  /** The `.org` folder. */
  stateDir: string;
  /** Folder of a node's own files. */
  nodeDir(structureId: string, nodeId: string): string;
  /** Bytes of node messages kept in memory (default 32 MiB). */
  cacheBytes?: number;
  /** Nodes whose messages are kept in memory (default 4,096). */
  cacheNodes?: number;
}

interface JournalRecord {
  run_id: string;
  structure_id?: string;
  node_id?: string;
  role_id?: string;
  end?: boolean;
}

interface CachedNode {
  messages: StoredMessage[];
  running: Map<string, StoredMessage>;
  bytes: number;
}

const MESSAGE_OVERHEAD = 400;

/**
 * The end record of `end`, which keeps at most `END_TEXT` characters of the text (marked
 * `text_truncated` when cut): the whole text is in the run's file already, as its `text`
 * events, and history pages rebuild it from them.
 */
function endRecord(end: AgentEndRecord): MessageRecord {
  if (end.text.length <= END_TEXT) return { kind: 'end', ...end };
  return { kind: 'end', ...end, text: headOf(end.text, END_TEXT), text_truncated: true };
}

function messageBytes(message: StoredMessage): number {
  return MESSAGE_OVERHEAD + 2 * (message.text.length + (message.summary?.length ?? 0));
}

/** Creates the store. Call `openRuns()` once at start-up, before new runs start. */
export function createFsChatStore(options: FsChatStoreOptions): ChatStore {
  const runsDir = join(options.stateDir, 'runs');
  const journalPath = join(options.stateDir, 'runs.jsonl');
  // Opened for appends only after start-up compacted it (a rename would orphan an open file).
  let journal = new GroupFile(journalPath, { syncDirectory: false });
  const writers = new Map<string, GroupFile>();
  const cache = new BoundedCache<string, CachedNode>({ maxEntries: options.cacheNodes ?? 4096, maxBytes: options.cacheBytes ?? 32 * 1024 * 1024 });
  const nodeLock = new KeyedMutex();
  const nodeKey = (where: { structureId: string; nodeId: string }) => `${where.structureId}/${where.nodeId}`;
  const historyOf = (where: { structureId: string; nodeId: string }) => historyFile(options.nodeDir(where.structureId, where.nodeId));

  /** The cached messages of a node, loading them when needed (call under the node's lock). */
  const loadNode = async (where: { structureId: string; nodeId: string; roleId?: string }): Promise<CachedNode> => {
    const key = nodeKey(where);
    const hit = cache.get(key);
    if (hit) return hit;
    const records = await loadNodeRecords(historyOf(where), runsDir, { structureId: where.structureId, nodeId: where.nodeId, roleId: where.roleId ?? '' });
    const messages = applyRecords(records);
    const running = new Map(messages.filter((message) => message.status === 'running').map((message) => [message.run_id, message]));
    const node: CachedNode = { messages, running, bytes: messages.reduce((sum, message) => sum + messageBytes(message), 0) };
    cache.set(key, node, node.bytes);
    return node;
  };

  /** Appends message records durably, then to the cached list. */
  const appendMessages = (where: { structureId: string; nodeId: string; roleId?: string }, ...records: MessageRecord[]) =>
    nodeLock.run(nodeKey(where), async () => {
      const node = await loadNode(where);
      await appendJsonl(historyOf(where), ...records);
      for (const record of records) {
        const before = node.messages.length;
        applyRecord(node.messages, node.running, record);
        const added = node.messages.slice(before).reduce((sum, message) => sum + messageBytes(message), 0);
        const ended = record.kind === 'end' ? 2 * record.text!.length : 0;
        node.bytes += added + ended;
        cache.resize(nodeKey(where), added + ended);
      }
    });

  const writerOf = (runId: string): GroupFile => {
    let writer = writers.get(runId);
    if (!writer) {
      const files = runFiles(runsDir, runId);
      if (!files) throw new Error(`run id ${runId} is not a UUID`);
      writer = new GroupFile(files.current, { records: 'frames' });
      writers.set(runId, writer);
    }
    return writer;
  };

  return {
    async startRun(where, user, start) {
      await Promise.all([
        writerOf(where.runId).append(headerFrame(where)),
        journal.append(`${JSON.stringify({ run_id: where.runId, structure_id: where.structureId, node_id: where.nodeId, role_id: where.roleId } satisfies JournalRecord)}\n`),
        appendMessages(where, { kind: 'user', ...user }, { kind: 'start', ...start }),
      ]);
    },

    eventWriter(where): RunEventWriter {
      const writer = writerOf(where.runId);
      return {
        // The frames the streams receive are the bytes written.
        write: (batches) => writer.append(batches.length === 1 ? batches[0]!.frames : batches.map((batch) => batch.frames)),
        close: async () => {
          await writer.close();
          if (writers.get(where.runId) === writer) writers.delete(where.runId);
        },
      };
    },

    async endRun(where, end: AgentEndRecord) {
      await Promise.all([
        appendMessages(where, endRecord(end)),
        journal.append(`${JSON.stringify({ run_id: where.runId, end: true } satisfies JournalRecord)}\n`),
      ]);
      const writer = writers.get(where.runId);
      if (writer) {
        writers.delete(where.runId);
        await writer.close();
      }
    },

    async locate(runId) {
      const files = runFiles(runsDir, runId);
      return files ? readHeader(files) : undefined;
    },

    findRuns: (prefix, scope, limit) => findRunFiles(runsDir, prefix, scope, limit),

    async events(runId, afterSeq) {
      const files = runFiles(runsDir, runId);
      return files ? readEvents(files, afterSeq) : [];
    },

    async *eventFrames(runId, afterSeq) {
      const files = runFiles(runsDir, runId);
      if (files) yield* readEventFrames(files, afterSeq);
    },

    messages: (where, page: MessagePage) =>
      nodeLock.run(nodeKey(where), async () => {
        const { messages } = await loadNode(where);
        let end = messages.length;
        if (page.before !== undefined) {
          const index = messages.findIndex((message) => message.id === page.before);
          end = index < 0 ? 0 : index;
        }
        return messages.slice(Math.max(0, end - page.limit), end).reverse().map((message) => ({ ...message }));
      }),

    hasMessage: (where, messageId) => nodeLock.run(nodeKey(where), async () => (await loadNode(where)).messages.some((message) => message.id === messageId)),

    async openRuns() {
      const open = new Map<string, RunLocation>();
      const nodes = new Map<string, { structureId: string; nodeId: string; roleId: string }>();
      for (const record of await readJsonl<JournalRecord>(journalPath)) {
        if (record.end) {
          open.delete(record.run_id);
          continue;
        }
        if (!record.structure_id || !record.node_id || !record.role_id) continue;
        const where = { runId: record.run_id, structureId: record.structure_id, nodeId: record.node_id, roleId: record.role_id };
        open.set(record.run_id, where);
        nodes.set(nodeKey(where), where);
      }
      // Every node named by the journal is loaded once, which moves the events of an
      // earlier version's history file to run files (so any of its runs can be located).
      for (const node of nodes.values()) await nodeLock.run(nodeKey(node), () => loadNode(node));
      // Each open run's file is made ready for the events recovery appends.
      for (const where of open.values()) {
        const files = runFiles(runsDir, where.runId);
        if (files) await prepareOpenRun(files, where);
      }
      // Only the open runs need to stay in the journal.
      await writeAtomic(
        journalPath,
        [...open.values()].map((where) => `${JSON.stringify({ run_id: where.runId, structure_id: where.structureId, node_id: where.nodeId, role_id: where.roleId })}\n`).join(''),
      );
      await journal.close();
      journal = new GroupFile(journalPath, { syncDirectory: false });
      return [...open.values()];
    },

    async close() {
      await Promise.all([...writers.values()].map((writer) => writer.close()));
      writers.clear();
      await journal.close();
      await nodeLock.idle();
    },
  };
}
