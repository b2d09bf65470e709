/**
 * Wake-ups between instances: one LISTEN connection per instance on the channel
 * `org_wake`, whose payloads are `<topic>:<id>` (a few bytes: an id, never data). A
 * wake-up only says "look again": the tables are the truth, and a handler reads them.
 * When the connection drops, it is opened again and every `onResync` handler runs,
 * since wake-ups sent meanwhile are lost.
 */
import pg from 'pg';
import type { Queryable } from './db.js';

/** The channel every instance listens on. */
export const CHANNEL = 'org_wake';

/** Topics of wake-ups, each naming what changed by id. */
export type WakeTopic =
  /** New events of a run (id: run id). */
  | 'run'
  /** A run of a node ended or started, so its queue moved (id: node id). */
  | 'node'
  /** A cancel was asked for (id: run id). */
  | 'cancel'
  /** An MCP key was revoked (id: key id). */
  | 'key'
  /** A user's token changed or the user was removed (id: user id). */
  | 'user'
  /** A structure changed (id: structure id). */
  | 'structure'
  /** The skills remote has a new commit (id: the commit). */
  | 'skills'
  /** Delegation notes were left for a run (id: run id). */
  | 'delegation';

/** Sends a wake-up from inside a statement or transaction (delivered when it commits). */
export async function wake(db: Queryable, topic: WakeTopic, id: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [CHANNEL, `${topic}:${id}`]);
}

/** The listening side. */
export interface Listener {
  /** Resolves once LISTEN is in place. */
  ready: Promise<void>;
  /** Calls `handler` with the id of every wake-up of `topic`; returns the remover. */
  on(topic: WakeTopic, handler: (id: string) => void): () => void;
  /** Calls `handler` after the connection was lost and opened again (wake-ups may be lost). */
  onResync(handler: () => void): () => void;
  close(): Promise<void>;
}

/** Options of {@link listen}. */
export interface ListenOptions {
  url: string;
  /** Reports connection failures (the listener keeps reconnecting). */
  onError?: (error: unknown) => void;
  /** Wait before reconnecting, in ms (default 250, doubling up to 5 s). */
  retryMs?: number;
}

/** Opens the LISTEN connection of an instance. */
export function listen(options: ListenOptions): Listener {
  const handlers = new Map<string, Set<(id: string) => void>>();
  const resync = new Set<() => void>();
  let client: pg.Client | undefined;
  let closed = false;
  let retry = options.retryMs ?? 250;
  let timer: NodeJS.Timeout | undefined;
  let resolveReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    resolveReady = resolve;
  });

  const dispatch = (payload: string | undefined) => {
    if (!payload) return;
    const colon = payload.indexOf(':');
    if (colon < 0) return;
    const set = handlers.get(payload.slice(0, colon));
    if (!set) return;
    const id = payload.slice(colon + 1);
    for (const handler of set) {
      try {
        handler(id);
      } catch (error) {
        options.onError?.(error);
      }
    }
  };

  const connect = async (again: boolean) => {
    const next = new pg.Client({ connectionString: options.url, application_name: 'org-listen' });
    next.on('notification', (message) => {
      if (message.channel === CHANNEL) dispatch(message.payload);
    });
    const lost = (error?: unknown) => {
      if (client !== next) return;
      client = undefined;
      if (error) options.onError?.(error);
      void next.end().catch(() => undefined);
      schedule();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      options.onError?.(error);
      await next.end().catch(() => undefined);
      schedule();
      return;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
    retry = options.retryMs ?? 250;
    resolveReady();
    if (again) for (const handler of resync) handler();
  };

  const schedule = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect(true);
    }, retry);
    timer.unref();
    retry = Math.min(retry * 2, 5000);
  };

  void connect(false);

  return {
    ready,
    on(topic, handler) {
      let set = handlers.get(topic);
      if (!set) handlers.set(topic, (set = new Set()));
      set.add(handler);
      return () => set.delete(handler);
    },
    onResync(handler) {
      resync.add(handler);
      return () => resync.delete(handler);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = undefined;
      resolveReady();
      await current?.end().catch(() => undefined);
    },
  };
}
