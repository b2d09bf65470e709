/**
 * A node's chat history: an append-only JSON Lines file
 * (`.org/structures/<id>/nodes/<node_id>/history.jsonl`) with one record per user
 * message, run start, event and run end, written as they happen. Messages are rebuilt
 * from it once and then kept in memory.
 */
import { join } from 'node:path';
import { appendJsonl, readJsonl } from '../storage/index.js';
import type { AttachmentInfo, ChatEvent, HistoryMessage, RunStatus } from './types.js';

/** The records of history.jsonl. */
export type HistoryRecord =
  | { kind: 'user'; id: string; run_id: string; text: string; attachments: AttachmentInfo[]; created_at: string; origin?: string }
  | { kind: 'start'; id: string; run_id: string; created_at: string }
  | { kind: 'event'; run_id: string; seq: number; event: ChatEvent }
  | { kind: 'end'; run_id: string; status: Exclude<RunStatus, 'running'>; summary: string | null; artifacts: string[]; completed_at: string };

/** Options of a history page. */
export interface HistoryPage {
  limit: number;
  /** Only messages older than the message with this id. */
  before?: string;
}

/** One node's history. */
export class NodeHistory {
  private loading: Promise<HistoryMessage[]> | undefined;
  private readonly agentByRun = new Map<string, HistoryMessage>();
  private readonly pending: { records: HistoryRecord[]; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing = false;
  readonly file: string;

  constructor(nodeDir: string) {
    this.file = join(nodeDir, 'history.jsonl');
  }

  private loaded(): Promise<HistoryMessage[]> {
    this.loading ??= readJsonl<HistoryRecord>(this.file).then((records) => {
      const messages: HistoryMessage[] = [];
      for (const record of records) this.apply(messages, record);
      return messages;
    });
    return this.loading;
  }

  private apply(messages: HistoryMessage[], record: HistoryRecord): void {
    switch (record.kind) {
      case 'user':
        messages.push({
          id: record.id,
          run_id: record.run_id,
          sender: 'user',
          text: record.text,
          attachments: record.attachments,
          events: [],
          summary: null,
          artifacts: [],
          status: 'complete',
          created_at: record.created_at,
          completed_at: record.created_at,
          ...(record.origin ? { origin: record.origin } : {}),
        });
        return;
      case 'start': {
        const message: HistoryMessage = {
          id: record.id,
          run_id: record.run_id,
          sender: 'agent',
          text: '',
          attachments: [],
          events: [],
          summary: null,
          artifacts: [],
          status: 'running',
          created_at: record.created_at,
          completed_at: null,
        };
        messages.push(message);
        this.agentByRun.set(record.run_id, message);
        return;
      }
      case 'event': {
        const message = this.agentByRun.get(record.run_id);
        if (!message) return;
        message.events.push(record.event);
        if (record.event.type === 'text') message.text += record.event.content;
        return;
      }
      case 'end': {
        const message = this.agentByRun.get(record.run_id);
        if (!message) return;
        message.status = record.status;
        message.summary = record.summary;
        message.artifacts = record.artifacts;
        message.completed_at = record.completed_at;
        this.agentByRun.delete(record.run_id);
        return;
      }
    }
  }

  /**
   * Appends records durably, then applies them to the in-memory view. Appends that
   * arrive while a write is in flight are committed together in the next write (group
   * commit), in the order they were made; each promise resolves once its records are
   * on disk.
   */
  append(...records: HistoryRecord[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ records, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      const messages = await this.loaded();
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0);
        const records = batch.flatMap((entry) => entry.records);
        try {
          await appendJsonl(this.file, ...records);
        } catch (error) {
          for (const entry of batch) entry.reject(error);
          continue;
        }
        for (const record of records) this.apply(messages, record);
        for (const entry of batch) entry.resolve();
      }
    } catch (error) {
      for (const entry of this.pending.splice(0)) entry.reject(error);
    } finally {
      this.flushing = false;
    }
  }

  /** Messages newest first (a page). */
  async page(options: HistoryPage): Promise<HistoryMessage[]> {
    const messages = await this.loaded();
    let end = messages.length;
    if (options.before !== undefined) {
      const index = messages.findIndex((message) => message.id === options.before);
      end = index < 0 ? 0 : index;
    }
    return messages.slice(Math.max(0, end - options.limit), end).reverse();
  }

  /** True when a message with this id exists. */
  async has(messageId: string): Promise<boolean> {
    return (await this.loaded()).some((message) => message.id === messageId);
  }

  /** The agent message of a run. */
  async agentMessage(runId: string): Promise<HistoryMessage | undefined> {
    return (await this.loaded()).find((message) => message.sender === 'agent' && message.run_id === runId);
  }

  /** Runs that started but never ended (interrupted by a crash or restart). */
  async unfinishedRuns(): Promise<HistoryMessage[]> {
    return (await this.loaded()).filter((message) => message.sender === 'agent' && message.status === 'running');
  }
}
