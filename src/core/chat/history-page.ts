/**
 * A page of a node's history as the API serves it: the stored messages, newest first,
 * each agent message with every event of its run (from memory when this process knows
 * the run, else from the store) and its whole text.
 */
import { notFound } from '../errors.js';
import { decodeEvent } from './encoded.js';
import type { LiveRuns } from './live-runs.js';
import type { ChatDirectory } from './ports.js';
import type { ChatStore, MessagePage } from './store.js';
import type { ChatEvent, HistoryMessage } from './types.js';

/** What a history page reads. */
export interface HistoryDeps {
  directory: Pick<ChatDirectory, 'node'>;
  store: ChatStore;
  runs: LiveRuns;
}

/** A page of a node's history, newest first, with every event of each agent message. */
export async function historyPage(deps: HistoryDeps, structureId: string, roleId: string, page: MessagePage): Promise<HistoryMessage[]> {
  const node = deps.directory.node(structureId, roleId);
  const where = { structureId, nodeId: node.id };
  if (page.before !== undefined && !(await deps.store.hasMessage(where, page.before))) {
    throw notFound(`history message ${page.before} not found`);
  }
  const messages = await deps.store.messages(where, page);
  return Promise.all(
    messages.map(async (message): Promise<HistoryMessage> => {
      if (message.sender === 'user') return { ...message, events: [] };
      const live = deps.runs.entry(message.run_id);
      const known = live?.run ?? deps.runs.recentRun(message.run_id);
      // The end is stored just before the terminal event is published: wait for it.
      if (known && message.status !== 'running' && !known.finished) await known.done;
      const encoded = known ? known.eventsAfter(0) : await deps.store.events(message.run_id, 0);
      const events = encoded.map(decodeEvent);
      if (live && message.status === 'running') return { ...message, events, text: textOf(events) };
      if (message.text_truncated) {
        // The store kept the start of a long text: the whole of it is the run's text events.
        const { text_truncated: _cut, ...whole } = message;
        return { ...whole, events, text: textOf(events) };
      }
      return { ...message, events };
    }),
  );
}

function textOf(events: ChatEvent[]): string {
  let text = '';
  for (const event of events) if (event.type === 'text') text += event.content;
  return text;
}
