/**
 * Run tokens shared by the instances of a store (`RunTokenStore`): the hash of each
 * token in `run_tokens`, valid while its run is open (a run's end deletes them, and an
 * ended run never authenticates one). Expiry is the service's check.
 */
import type { RunTokenRecord, RunTokenStore } from '../../core/auth/run-tokens.js';
import type { Db } from './db.js';

/** The run token hashes over `db`. */
export function createPgRunTokenStore(db: Db): RunTokenStore {
  return {
    async put(hash, record) {
      await db.query('INSERT INTO run_tokens (token_hash, run_id, expires_at) VALUES ($1, $2, $3)', [hash, record.runId, record.expiresAt]);
    },
    async get(hash): Promise<RunTokenRecord | undefined> {
      const { rows } = await db.query<{ run_id: string; structure_id: string; node_id: string; role_id: string; expires_at: Date }>(
        `SELECT r.run_id, r.structure_id, r.node_id, r.role_id, t.expires_at FROM run_tokens t JOIN runs r ON r.run_id = t.run_id
         WHERE t.token_hash = $1 AND r.state <> 'ended'`,
        [hash],
      );
      const row = rows[0];
      return row && { runId: row.run_id, structureId: row.structure_id, nodeId: row.node_id, roleId: row.role_id, expiresAt: row.expires_at.toISOString() };
    },
  };
}
