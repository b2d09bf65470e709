/**
 * The PostgreSQL `ReplyJournal`: table `inbound_replies`. A reply is owned by the
 * instance that took the e-mail; `owed()` also takes over the unsent replies of
 * instances whose lease ran out (one statement, so one instance takes each).
 */
import type { OwedReply, ReplyJournal } from '../../core/inbound/reply-journal.js';
import type { Db } from './db.js';
import { aliveSql } from './instances.js';

/** The journal over `db` for one instance. */
export function createPgReplyJournal(db: Db, options: { instanceId: string; leaseMs: number }): ReplyJournal {
  return {
    async owe(reply) {
      await db.query('INSERT INTO inbound_replies (run_id, owed, owner) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING', [reply.run_id, JSON.stringify(reply), options.instanceId]);
    },
    async sent(runId) {
      await db.query('UPDATE inbound_replies SET sent_at = now() WHERE run_id = $1', [runId]);
    },
    async owed() {
      const { rows } = await db.query<{ owed: OwedReply }>(
        `UPDATE inbound_replies SET owner = $1
         WHERE sent_at IS NULL AND (owner = $1 OR NOT ${aliveSql('inbound_replies.owner', '$2')})
         RETURNING owed`,
        [options.instanceId, options.leaseMs],
      );
      return rows.map((row) => row.owed);
    },
    async pending() {
      const { rows } = await db.query<{ owed: OwedReply }>('SELECT owed FROM inbound_replies WHERE sent_at IS NULL ORDER BY run_id');
      return rows.map((row) => row.owed);
    },
  };
}
