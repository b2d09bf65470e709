/**
 * The PostgreSQL `ChatStore`: a node's messages in `chat_messages`, each run in `runs`
 * (its node queue position, owner instance and state) and its events in `run_events`
 * `(run_id, seq)`, holding each event's JSON text exactly as the appender produced it.
 * Every batch of events wakes the other instances (topic `run`, the run id), and the end
 * of a run wakes the waiters of its node (topic `node`). Runs left open by an instance
 * whose lease ran out are taken over by `openRuns`, exactly once.
 */
import { RUN_PREFIX_MIN, type AgentEndRecord, type ChatCluster, type ChatStore, type RunLocation, type StoredMessage } from '../../core/chat/store.js';
import type { MessageAuthor } from '../../core/chat/types.js';
import { runText, sseFrame, type EncodedEvent } from '../../core/chat/encoded.js';
import type { Db } from './db.js';
import { aliveSql } from './instances.js';
import { createPgDelegations } from './delegations.js';
import { CHANNEL, wake, type Listener } from './notify.js';

export interface PgChatStoreOptions {
  /** This instance: the owner of the runs it starts. */
  instanceId: string;
  /** An instance whose heartbeat is older than this is dead (ms). */
  leaseMs: number;
  /** This instance's wake-ups: with it, the store is shared (`cluster`): queues, live following and cancels across instances. */
  listener?: Listener;
}

interface MessageRow {
  id: string;
  run_id: string;
  sender: 'user' | 'agent';
  text: string;
  attachments: StoredMessage['attachments'];
  summary: string | null;
  artifacts: string[];
  status: StoredMessage['status'];
  created_at: string;
  completed_at: string | null;
  origin: string | null;
  delegated_by: StoredMessage['delegated_by'] | null;
  author: MessageAuthor | null;
}

interface RunRow {
  run_id: string;
  structure_id: string;
  node_id: string;
  role_id: string;
}

const MESSAGE_COLUMNS = 'id, run_id, sender, text, attachments, summary, artifacts, status, created_at, completed_at, origin, delegated_by, author';

function toMessage(row: MessageRow): StoredMessage {
  const { origin, delegated_by: delegatedBy, author, ...rest } = row;
  return { ...rest, ...(origin === null ? {} : { origin }), ...(delegatedBy ? { delegated_by: delegatedBy } : {}), ...(author === null ? {} : { author }) };
}

/**
 * The lowest and highest UUIDs that start with `prefix` (lowercase hex and hyphens where a
 * UUID has them); undefined when no UUID can (a hyphen out of place, a character that is
 * no hex digit, or too short a prefix).
 */
export function uuidRange(prefix: string): { low: string; high: string } | undefined {
  const shape = '00000000-0000-0000-0000-000000000000';
  if (prefix.length < RUN_PREFIX_MIN || prefix.length > shape.length) return undefined;
  for (let i = 0; i < prefix.length; i++) {
    const char = prefix[i]!;
    if (shape[i] === '-' ? char !== '-' : !/[0-9a-f]/.test(char)) return undefined;
  }
  const rest = shape.slice(prefix.length);
  return { low: prefix + rest, high: prefix + rest.replaceAll('0', 'f') };
}

function toLocation(row: RunRow): RunLocation {
  return { runId: row.run_id, structureId: row.structure_id, nodeId: row.node_id, roleId: row.role_id };
}

/** Events read per query of a replay. */
const REPLAY_PAGE = 256;

/** The store over `db`. */
export function createPgChatStore(db: Db, options: PgChatStoreOptions): ChatStore {
  const write = async (where: RunLocation, batch: readonly EncodedEvent[]) => {
    if (batch.length === 0) return;
    // One statement: the rows and the wake-up commit together.
    await db.query(
      `WITH added AS (
         INSERT INTO run_events (run_id, seq, type, json)
         SELECT $1, e.seq, e.type, e.json FROM unnest($2::int[], $3::text[], $4::text[]) AS e(seq, type, json)
       )
       SELECT pg_notify($5, 'run:' || $1::text)`,
      [where.runId, batch.map((event) => event.seq), batch.map((event) => event.type), batch.map((event) => event.json), CHANNEL],
    );
  };

  return {
    ...(options.listener ? { cluster: createCluster(db, options.instanceId, options.listener) } : {}),

    startRun: (where, user, start, facts) =>
      db.tx(async (client) => {
        // Turns of a node are queued in the order they arrive: positions are taken one at a
        // time per node, so a later position is never committed before an earlier one.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1::text, 1))', [where.nodeId]);
        const by = user.delegated_by;
        await client.query(
          `INSERT INTO runs (run_id, structure_id, node_id, role_id, owner, queue_pos, state, parent_run_id, root_run_id, started_by)
           VALUES ($1, $2, $3, $4, $5, nextval('runs_queue'), 'queued', $6, $7, $8)`,
          [where.runId, where.structureId, where.nodeId, where.roleId, options.instanceId, by?.run_id ?? null, by?.root_run_id ?? null, facts?.startedBy ?? null],
        );
        await client.query(
          `INSERT INTO chat_messages (id, structure_id, node_id, run_id, sender, text, attachments, status, created_at, completed_at, origin, delegated_by, author)
           VALUES ($1, $2, $3, $4, 'user', $5, $6, 'complete', $7, $7, $8, $11, $12), ($9, $2, $3, $4, 'agent', '', '[]', 'running', $10, NULL, NULL, NULL, NULL)`,
          [
            user.id,
            where.structureId,
            where.nodeId,
            where.runId,
            user.text,
            JSON.stringify(user.attachments),
            user.created_at,
            user.origin ?? null,
            start.id,
            start.created_at,
            by ? JSON.stringify(by) : null,
            user.author ? JSON.stringify(user.author) : null,
          ],
        );
      }),

    eventWriter: (where) => ({ write: (batches) => write(where, batches.flatMap((batch) => batch.events())), close: async () => undefined }),

    endRun: (where, end: AgentEndRecord) =>
      db.tx(async (client) => {
        // A text given cut is kept whole: rebuilt from the run's text events.
        const text = end.text_truncated ? runText((await client.query<EncodedEvent>(`SELECT seq, type, json FROM run_events WHERE run_id = $1 AND type = 'text' ORDER BY seq`, [where.runId])).rows) : end.text;
        await client.query(
          `UPDATE chat_messages SET status = $2, text = $3, summary = $4, artifacts = $5, completed_at = $6 WHERE run_id = $1 AND sender = 'agent'`,
          [where.runId, end.status, text, end.summary, JSON.stringify(end.artifacts), end.completed_at],
        );
        await client.query(`UPDATE runs SET state = 'ended', ended_at = now() WHERE run_id = $1`, [where.runId]);
        await client.query('DELETE FROM run_tokens WHERE run_id = $1', [where.runId]);
        await wake(client, 'node', where.nodeId);
      }),

    async locate(runId) {
      const { rows } = await db.query<RunRow>('SELECT run_id, structure_id, node_id, role_id FROM runs WHERE run_id = $1', [runId]);
      return rows[0] && toLocation(rows[0]);
    },

    async findRuns(prefix, scope, limit) {
      const range = uuidRange(prefix);
      if (!range) return [];
      // A range of the primary key (not LIKE on its text): the index answers it.
      const { rows } = await db.query<RunRow>(
        `SELECT run_id, structure_id, node_id, role_id FROM runs
          WHERE run_id BETWEEN $1::uuid AND $2::uuid AND ($3::uuid[] IS NULL OR structure_id = ANY($3::uuid[])) AND ($4::text IS NULL OR role_id = $4)
          ORDER BY run_id LIMIT $5`,
        [range.low, range.high, scope.structureIds === 'all' ? null : scope.structureIds, scope.roleId ?? null, limit],
      );
      return rows.map(toLocation);
    },

    async events(runId, afterSeq) {
      const { rows } = await db.query<EncodedEvent>('SELECT seq, type, json FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq', [runId, afterSeq]);
      return rows;
    },

    async *eventFrames(runId, afterSeq) {
      // A page at a time, by sequence: a replay holds one page, however long the run.
      for (let after = afterSeq; ; ) {
        const { rows } = await db.query<EncodedEvent>('SELECT seq, type, json FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [runId, after, REPLAY_PAGE]);
        if (rows.length === 0) return;
        let text = '';
        for (const row of rows) text += sseFrame(row);
        yield Buffer.from(text, 'utf8');
        if (rows.length < REPLAY_PAGE) return;
        after = rows.at(-1)!.seq;
      }
    },

    async messages(where, page) {
      const { rows } = await db.query<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM chat_messages
         WHERE structure_id = $1 AND node_id = $2
           AND ($3::uuid IS NULL OR pos < (SELECT pos FROM chat_messages WHERE id = $3 AND structure_id = $1 AND node_id = $2))
         ORDER BY pos DESC LIMIT $4`,
        [where.structureId, where.nodeId, page.before ?? null, page.limit],
      );
      return rows.map(toMessage);
    },

    async hasMessage(where, messageId) {
      const { rows } = await db.query('SELECT 1 FROM chat_messages WHERE id = $1 AND structure_id = $2 AND node_id = $3', [messageId, where.structureId, where.nodeId]);
      return rows.length > 0;
    },

    async openRuns() {
      // Takes over the open runs of instances whose lease ran out: the update makes this
      // instance their owner in one statement, so each is taken (and closed) by one instance.
      const { rows } = await db.query<RunRow>(
        `UPDATE runs SET owner = $1
         WHERE state <> 'ended' AND owner <> $1 AND NOT ${aliveSql('runs.owner', '$2')}
         RETURNING run_id, structure_id, node_id, role_id`,
        [options.instanceId, options.leaseMs],
      );
      return rows.map(toLocation);
    },

    close: async () => undefined,
  };
}

/** Waits for the first of: a wake-up of `topic` for `id`, a resync, or `signal`. */
function wakeOf(listener: Listener, topic: 'node' | 'run', id: string, signal?: AbortSignal): { woken: Promise<void>; stop: () => void } {
  let resolve!: () => void;
  const woken = new Promise<void>((done) => {
    resolve = done;
  });
  const off = listener.on(topic, (woke) => {
    if (woke === id) resolve();
  });
  const offResync = listener.onResync(resolve);
  signal?.addEventListener('abort', resolve, { once: true });
  return {
    woken,
    stop: () => {
      off();
      offResync();
      signal?.removeEventListener('abort', resolve);
    },
  };
}

/** The cross-instance side of the store: node queues, run wake-ups and cancels. */
function createCluster(db: Db, instanceId: string, listener: Listener): ChatCluster {
  return {
    async awaitTurn(where, signal) {
      for (;;) {
        if (signal.aborted) return;
        // Listen before looking, so an end committed in between still wakes this wait.
        const wait = wakeOf(listener, 'node', where.nodeId, signal);
        try {
          const { rows } = await db.query<{ run_id: string }>(`SELECT run_id FROM runs WHERE node_id = $1 AND state <> 'ended' ORDER BY queue_pos LIMIT 1`, [where.nodeId]);
          const first = rows[0]?.run_id;
          if (first === undefined || first === where.runId) {
            await db.query(`UPDATE runs SET state = 'running', started_at = now() WHERE run_id = $1 AND state = 'queued'`, [where.runId]);
            return;
          }
          await wait.woken;
        } finally {
          wait.stop();
        }
      }
    },

    watchRun(runId, handler) {
      const off = listener.on('run', (id) => {
        if (id === runId) handler();
      });
      const offResync = listener.onResync(handler);
      return () => {
        off();
        offResync();
      };
    },

    requestCancel: (runId, reason, by) =>
      db.tx(async (client) => {
        const { rowCount } = await client.query(`UPDATE runs SET cancel_reason = $2, cancel_by = $3 WHERE run_id = $1 AND state <> 'ended'`, [runId, reason, by ?? null]);
        if (!rowCount) return false;
        await wake(client, 'cancel', runId);
        return true;
      }),

    delegations: createPgDelegations(db, listener),

    onCancel(handler) {
      return listener.on('cancel', (runId) => {
        db.query<{ owner: string; cancel_reason: string | null; cancel_by: string | null }>('SELECT owner, cancel_reason, cancel_by FROM runs WHERE run_id = $1', [runId]).then(
          ({ rows }) => {
            const row = rows[0];
            if (row && row.owner === instanceId) handler(runId, row.cancel_reason ?? 'cancelled', row.cancel_by ?? undefined);
          },
          () => undefined,
        );
      });
    },
  };
}
