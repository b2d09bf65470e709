/** The PostgreSQL `UserStore`: table `users`; a token change wakes every instance (topic `user`). */
import type { UserRecord, UserStore } from '../../core/auth/index.js';
import { conflict } from '../../core/errors.js';
import { isUniqueViolation, type Db } from './db.js';
import { wake } from './notify.js';

const COLUMNS = 'id, email, token_hash, created_at, invite_id, admin';

interface UserRow {
  id: string;
  email: string;
  token_hash: string;
  created_at: string;
  invite_id: string | null;
  admin: boolean;
}

function toRecord(row: UserRow): UserRecord {
  const { invite_id, admin, ...rest } = row;
  return { ...rest, ...(invite_id ? { invite_id } : {}), ...(admin ? { admin: true } : {}) };
}

/** The store over `db`. */
export function createPgUserStore(db: Db): UserStore {
  const one = async (where: string, value: string) => {
    const row = (await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE ${where} = $1`, [value])).rows[0];
    return row && toRecord(row);
  };
  return {
    byTokenHash: (hash) => one('token_hash', hash),
    byId: (id) => one('id', id),
    byEmail: (email) => one('email', email),
    async count() {
      return Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0]!.n);
    },
    async list() {
      return (await db.query<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY created_at, id`)).rows.map(toRecord);
    },
    async insert(record) {
      try {
        await db.query(`INSERT INTO users (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
          record.id,
          record.email,
          record.token_hash,
          record.created_at,
          record.invite_id ?? null,
          record.admin === true,
        ]);
      } catch (error) {
        if (isUniqueViolation(error, 'users_email_key')) throw conflict(`a user with e-mail ${record.email} already exists`);
        throw error;
      }
    },
    setTokenHash: (id, hash) =>
      db.tx(async (client) => {
        const result = await client.query('UPDATE users SET token_hash = $2 WHERE id = $1', [id, hash]);
        if (result.rowCount === 0) throw new Error(`no user ${id}`);
        // Other instances drop the old token from their caches.
        await wake(client, 'user', id);
      }),
  };
}
