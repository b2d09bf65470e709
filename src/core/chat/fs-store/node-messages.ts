/**
 * A node's messages on disk: `nodes/<node_id>/history.jsonl`, one record per user
 * message, agent-message start and agent-message end. Events are not in this file
 * (they are in the run files), so it stays small and a node's messages can be held in
 * memory and dropped again under memory pressure.
 *
 * Homes written by earlier versions kept every event in history.jsonl; the first load
 * of such a file moves the events to run files and rewrites it (see `migrate`).
 */
import { join } from 'node:path';
import { readJsonl, writeAtomic } from '../../storage/index.js';
import type { EncodedEvent } from '../encoded.js';
import type { AgentEndRecord, AgentStartRecord, StoredMessage, UserMessageRecord } from '../store.js';
import type { ChatEvent } from '../types.js';
import { eventFrames, headerFrame, runFiles } from './run-files.js';

/** The records of history.jsonl. */
export type MessageRecord =
  | ({ kind: 'user' } & UserMessageRecord)
  | ({ kind: 'start' } & AgentStartRecord)
  | ({ kind: 'end' } & Omit<AgentEndRecord, 'text'> & { text?: string; text_truncated?: true });

/** A record of an earlier version: an event inside history.jsonl. */
interface LegacyEventRecord {
  kind: 'event';
  run_id: string;
  seq: number;
  event: ChatEvent;
}

/** The history file of a node. */
export function historyFile(nodeDir: string): string {
  return join(nodeDir, 'history.jsonl');
}

/** Builds the message list from records (oldest first). */
export function applyRecords(records: readonly MessageRecord[]): StoredMessage[] {
  const messages: StoredMessage[] = [];
  const agentByRun = new Map<string, StoredMessage>();
  for (const record of records) applyRecord(messages, agentByRun, record);
  return messages;
}

/** Applies one record to a message list; `agentByRun` indexes the agent messages still running. */
export function applyRecord(messages: StoredMessage[], agentByRun: Map<string, StoredMessage>, record: MessageRecord): void {
  switch (record.kind) {
    case 'user':
      messages.push({
        id: record.id,
        run_id: record.run_id,
        sender: 'user',
        text: record.text,
        attachments: record.attachments,
        summary: null,
        artifacts: [],
        status: 'complete',
        created_at: record.created_at,
        completed_at: record.created_at,
        ...(record.origin ? { origin: record.origin } : {}),
        ...(record.delegated_by ? { delegated_by: record.delegated_by } : {}),
        ...(record.author ? { author: record.author } : {}),
      });
      return;
    case 'start': {
      const message: StoredMessage = {
        id: record.id,
        run_id: record.run_id,
        sender: 'agent',
        text: '',
        attachments: [],
        summary: null,
        artifacts: [],
        status: 'running',
        created_at: record.created_at,
        completed_at: null,
      };
      messages.push(message);
      agentByRun.set(record.run_id, message);
      return;
    }
    case 'end': {
      const message = agentByRun.get(record.run_id);
      if (!message) return;
      message.status = record.status;
      message.text = record.text ?? '';
      if (record.text_truncated) message.text_truncated = true;
      message.summary = record.summary;
      message.artifacts = record.artifacts;
      message.completed_at = record.completed_at;
      agentByRun.delete(record.run_id);
      return;
    }
  }
}

/**
 * Reads a node's history file; when it holds events (an earlier version's layout), moves
 * them to run files under `runsDir` and rewrites the file without them. Every step is
 * atomic and repeatable, so a crash mid-way is finished by the next load.
 */
export async function loadNodeRecords(file: string, runsDir: string, node: { structureId: string; nodeId: string; roleId: string }): Promise<MessageRecord[]> {
  const records = await readJsonl<MessageRecord | LegacyEventRecord>(file);
  if (!records.some((record) => record.kind === 'event')) return records as MessageRecord[];
  return migrate(file, runsDir, node, records);
}

async function migrate(
  file: string,
  runsDir: string,
  node: { structureId: string; nodeId: string; roleId: string },
  records: (MessageRecord | LegacyEventRecord)[],
): Promise<MessageRecord[]> {
  const eventsByRun = new Map<string, EncodedEvent[]>();
  const text = new Map<string, string>();
  for (const record of records) {
    if (record.kind !== 'event') continue;
    let list = eventsByRun.get(record.run_id);
    if (!list) eventsByRun.set(record.run_id, (list = []));
    list.push({ seq: record.seq, type: record.event.type, json: JSON.stringify(record.event) });
    if (record.event.type === 'text') text.set(record.run_id, (text.get(record.run_id) ?? '') + record.event.content);
  }
  for (const [runId, events] of eventsByRun) {
    const files = runFiles(runsDir, runId);
    if (!files) continue;
    const where = { runId, ...node };
    await writeAtomic(files.current, headerFrame(where) + eventFrames(events));
  }
  const kept: MessageRecord[] = [];
  for (const record of records) {
    if (record.kind === 'event') continue;
    kept.push(record.kind === 'end' && record.text === undefined ? { ...record, text: text.get(record.run_id) ?? '' } : record);
  }
  await writeAtomic(file, kept.map((record) => `${JSON.stringify(record)}\n`).join(''));
  return kept;
}
