/** The PostgreSQL `InviteStore`: table `invites`. */
import type { InviteRecord, InviteStore } from '../../core/structures/invite-store.js';
import type { Db } from './db.js';

const COLUMNS = 'id, structure_id, email, role, token_hash, status, invited_by, created_at, expires_at, accepted_at';

/** The store over `db`. */
export function createPgInviteStore(db: Db): InviteStore {
  return {
    insert: (invite) =>
      db.tx(async (client) => {
        // One invite per address and structure is pending: serialise re-invites of the same address.
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7))', [`${invite.structure_id}/${invite.email}`]);
        await client.query(`UPDATE invites SET status = 'replaced' WHERE structure_id = $1 AND email = $2 AND status = 'pending'`, [invite.structure_id, invite.email]);
        await client.query(`INSERT INTO invites (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
          invite.id,
          invite.structure_id,
          invite.email,
          invite.role,
          invite.token_hash,
          invite.status,
          invite.invited_by,
          invite.created_at,
          invite.expires_at,
          invite.accepted_at,
        ]);
      }),
    async byTokenHash(hash) {
      return (await db.query<InviteRecord>(`SELECT ${COLUMNS} FROM invites WHERE token_hash = $1`, [hash])).rows[0];
    },
    async claim(id, at) {
      const { rowCount } = await db.query(`UPDATE invites SET status = 'accepted', accepted_at = $2 WHERE id = $1 AND status = 'pending'`, [id, at]);
      return rowCount === 1;
    },
    async revoke(structureId, id) {
      const { rows } = await db.query<InviteRecord>(
        `UPDATE invites SET status = 'revoked' WHERE id = $1 AND structure_id = $2 AND status = 'pending' RETURNING ${COLUMNS}`,
        [id, structureId],
      );
      return rows[0];
    },
    async release(id) {
      await db.query(`UPDATE invites SET status = 'pending', accepted_at = NULL WHERE id = $1 AND status = 'accepted'`, [id]);
    },
    async pendingOf(structureId) {
      return (await db.query<InviteRecord>(`SELECT ${COLUMNS} FROM invites WHERE structure_id = $1 AND status = 'pending' ORDER BY pos DESC`, [structureId])).rows;
    },
    async list() {
      return (await db.query<InviteRecord>(`SELECT ${COLUMNS} FROM invites ORDER BY pos`)).rows;
    },
  };
}
