/**
 * What instances sharing the database know together about delegations (API.md §10;
 * `SharedDelegations`): each run's parent, root and starter are columns of `runs`
 * (written by `startRun`), a turn's delegations are counted in `runs.delegations` by one
 * conditional update each (so the limit holds whichever instance starts them), and notes
 * for the instance running a delegating turn wait in `delegation_notes`, each handed over
 * once (a wake-up of topic `delegation` names the run).
 */
import type { DelegationNote, OpenRunLink, RunLineage } from '../../core/chat/delegation/types.js';
import type { SharedDelegations } from '../../core/chat/store.js';
import type { Db } from './db.js';
import { CHANNEL, type Listener } from './notify.js';

/** Deepest chain walked up from a run (far beyond any depth limit; bounds a corrupt loop). */
const CHAIN_WALK = 64;

interface ChainRow {
  run_id: string;
  node_id: string;
  role_id: string;
  started_by: string | null;
}

/** The shared delegations over `db`, woken through `listener`. */
export function createPgDelegations(db: Db, listener: Listener): SharedDelegations {
  /** Hands the notes left for `runId` to `handler`, once (they are deleted as they are read). */
  const take = async (runId: string, handler: (runId: string, notes: DelegationNote[]) => void) => {
    const { rows } = await db.query<{ note: DelegationNote }>(
      'WITH taken AS (DELETE FROM delegation_notes WHERE run_id = $1 RETURNING pos, note) SELECT note FROM taken ORDER BY pos',
      [runId],
    );
    if (rows.length > 0) handler(runId, rows.map((row) => row.note));
  };

  return {
    async lineage(runId): Promise<RunLineage | undefined> {
      const { rows } = await db.query<ChainRow & { up: number; message: string | null }>(
        `WITH RECURSIVE chain AS (
           SELECT run_id, node_id, role_id, parent_run_id, started_by, 0 AS up FROM runs WHERE run_id = $1 AND state <> 'ended'
           UNION ALL
           SELECT r.run_id, r.node_id, r.role_id, r.parent_run_id, r.started_by, c.up + 1 FROM runs r JOIN chain c ON r.run_id = c.parent_run_id WHERE c.up < $2
         )
         SELECT c.run_id, c.node_id, c.role_id, c.started_by, c.up,
                (SELECT m.text FROM chat_messages m WHERE m.run_id = c.run_id AND m.sender = 'user') AS message
         FROM chain c ORDER BY c.up DESC`,
        [runId, CHAIN_WALK],
      );
      const self = rows.at(-1);
      if (!self) return undefined;
      const chain = rows.map((row) => ({ runId: row.run_id, nodeId: row.node_id, roleId: row.role_id }));
      const rootMessage = rows[0]!.message ?? '';
      return self.started_by ? { chain, rootMessage, startedBy: self.started_by } : { chain, rootMessage };
    },

    async take(runId, limit) {
      const { rowCount } = await db.query(`UPDATE runs SET delegations = delegations + 1 WHERE run_id = $1 AND state <> 'ended' AND delegations < $2`, [runId, limit]);
      return rowCount === 1;
    },

    async giveBack(runId) {
      await db.query('UPDATE runs SET delegations = greatest(delegations - 1, 0) WHERE run_id = $1', [runId]);
    },

    async openRuns(structureId): Promise<OpenRunLink[]> {
      const { rows } = await db.query<{ run_id: string; node_id: string; role_id: string; parent_run_id: string | null }>(
        `SELECT run_id, node_id, role_id, parent_run_id FROM runs WHERE structure_id = $1 AND state <> 'ended' ORDER BY queue_pos`,
        [structureId],
      );
      return rows.map((row) => ({ runId: row.run_id, nodeId: row.node_id, roleId: row.role_id, parentRunId: row.parent_run_id }));
    },

    async openChildren(runId) {
      const { rows } = await db.query<{ run_id: string }>(`SELECT run_id FROM runs WHERE parent_run_id = $1 AND state <> 'ended'`, [runId]);
      return rows.map((row) => row.run_id);
    },

    async parentOf(runId) {
      const { rows } = await db.query<{ parent_run_id: string | null }>('SELECT parent_run_id FROM runs WHERE run_id = $1', [runId]);
      return rows[0]?.parent_run_id ?? undefined;
    },

    async note(runId, note) {
      // One statement: the note and its wake-up commit together.
      await db.query(
        `WITH added AS (INSERT INTO delegation_notes (run_id, note) VALUES ($1, $2))
         SELECT pg_notify($3, 'delegation:' || $1::text)`,
        [runId, JSON.stringify(note), CHANNEL],
      );
    },

    onNotes(runsHere, handler) {
      const fail = () => undefined;
      const off = listener.on('delegation', (runId) => {
        if (runsHere(runId)) take(runId, handler).catch(fail);
      });
      // Wake-ups lost while the connection was down: look for notes of runs of this instance.
      const offResync = listener.onResync(() => {
        db.query<{ run_id: string }>('SELECT DISTINCT run_id FROM delegation_notes').then(({ rows }) => {
          for (const { run_id: runId } of rows) if (runsHere(runId)) take(runId, handler).catch(fail);
        }, fail);
      });
      return () => {
        off();
        offResync();
      };
    },
  };
}
