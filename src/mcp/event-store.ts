/**
 * The event store of one 2025-revision session: every SSE message the session sends
 * gets an id (`<stream>_<n>`), and a client that lost a stream reconnects with
 * `Last-Event-ID` and receives what it missed. Bounded (the newest
 * {@link EVENTS_PER_SESSION} messages), and dropped with its session.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/** Messages kept per session. */
export const EVENTS_PER_SESSION = 2000;

interface Stored {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
}

/** An in-memory, bounded {@link EventStore}. */
export class SessionEventStore implements EventStore {
  private readonly events: Stored[] = [];
  private readonly byId = new Map<string, Stored>();
  private next = 0;

  constructor(private readonly limit = EVENTS_PER_SESSION) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const stored = { id: `${streamId}_${++this.next}`, streamId, message };
    this.events.push(stored);
    this.byId.set(stored.id, stored);
    while (this.events.length > this.limit) this.byId.delete(this.events.shift()!.id);
    return stored.id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.byId.get(eventId)?.streamId;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const last = this.byId.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const stored of [...this.events]) {
      if (stored === last) after = true;
      else if (after && stored.streamId === last.streamId && Object.keys(stored.message).length > 0) await send(stored.id, stored.message);
    }
    return last.streamId;
  }

  /** Number of messages held (tests). */
  get size(): number {
    return this.events.length;
  }
}
