/** The PostgreSQL `KeyStore`: table `mcp_keys`; a revocation wakes every instance (topic `key`). */
import type { KeyStore, McpKeyRecord } from '../../core/auth/index.js';
import type { Db } from './db.js';
import { wake } from './notify.js';

const COLUMNS = 'id, structure_id, node_id, role_id, label, prefix, token_hash, created_at, last_used_at, revoked_at';

/** The store over `db`. */
export function createPgKeyStore(db: Db): KeyStore {
  return {
    async liveByHash(hash) {
      return (await db.query<McpKeyRecord>(`SELECT ${COLUMNS} FROM mcp_keys WHERE token_hash = $1 AND revoked_at IS NULL`, [hash])).rows[0];
    },
    async liveOfNode(structureId, nodeId) {
      return (
        await db.query<McpKeyRecord>(`SELECT ${COLUMNS} FROM mcp_keys WHERE structure_id = $1 AND node_id = $2 AND revoked_at IS NULL ORDER BY created_at, id`, [
          structureId,
          nodeId,
        ])
      ).rows;
    },
    async list() {
      return (await db.query<McpKeyRecord>(`SELECT ${COLUMNS} FROM mcp_keys ORDER BY created_at, id`)).rows;
    },
    async insert(key) {
      await db.query(`INSERT INTO mcp_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
        key.id,
        key.structure_id,
        key.node_id,
        key.role_id,
        key.label,
        key.prefix,
        key.token_hash,
        key.created_at,
        key.last_used_at,
        key.revoked_at,
      ]);
    },
    revoke: (structureId, nodeId, keyId, at) =>
      db.tx(async (client) => {
        const { rows } = await client.query<McpKeyRecord>(
          `UPDATE mcp_keys SET revoked_at = $4 WHERE id = $3 AND structure_id = $1 AND node_id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
          [structureId, nodeId, keyId, at],
        );
        if (rows[0]) await wake(client, 'key', keyId);
        return rows[0];
      }),
    async recordUse(used) {
      if (used.size === 0) return;
      await db.query(
        `UPDATE mcp_keys SET last_used_at = u.at FROM unnest($1::uuid[], $2::text[]) AS u(id, at)
         WHERE mcp_keys.id = u.id AND (mcp_keys.last_used_at IS NULL OR mcp_keys.last_used_at < u.at)`,
        [[...used.keys()], [...used.values()]],
      );
    },
  };
}
