/**
 * The filesystem `UserStore`: every user in `.org/users.json`, held in memory. A file of
 * an earlier version (1) had no administrators: when it is loaded, the user the first
 * start created (`owner@localhost`, not created by an invite) becomes one, once, and the
 * file moves to version 2 (API.md §10).
 */
import { conflict } from '../errors.js';
import { JsonFile } from '../storage/index.js';
import type { UserRecord, UserStore } from './user-store.js';

interface UsersDoc {
  version: 1 | 2;
  users: UserRecord[];
}

/** The address of the user a first start creates. */
export const FIRST_START_EMAIL = 'owner@localhost';

/** Loads `file` (an empty list when absent) and returns the store. */
export async function createFsUserStore(file: string): Promise<UserStore> {
  const doc = new JsonFile<UsersDoc>(file, () => ({ version: 2, users: [] }));
  await doc.load();
  if (doc.current.version !== 2) {
    await doc.update((draft) => {
      draft.version = 2;
      const first = draft.users.find((user) => user.email === FIRST_START_EMAIL && user.invite_id === undefined);
      if (first) first.admin = true;
    });
  }
  let byHash = new Map<string, UserRecord>();
  const reindex = () => {
    byHash = new Map(doc.current.users.map((user) => [user.token_hash, user]));
  };
  reindex();
  return {
    byTokenHash: async (hash) => byHash.get(hash),
    byId: async (id) => doc.current.users.find((user) => user.id === id),
    byEmail: async (email) => doc.current.users.find((user) => user.email === email),
    count: async () => doc.current.users.length,
    list: async () => [...doc.current.users],
    async insert(record) {
      await doc.update((draft) => {
        if (draft.users.some((user) => user.email === record.email)) throw conflict(`a user with e-mail ${record.email} already exists`);
        draft.users.push(record);
      });
      reindex();
    },
    async setTokenHash(id, hash) {
      await doc.update((draft) => {
        const user = draft.users.find((candidate) => candidate.id === id);
        if (!user) throw new Error(`no user ${id}`);
        user.token_hash = hash;
      });
      reindex();
    },
  };
}
