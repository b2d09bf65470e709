/** The filesystem `UserStore`: every user in `.org/users.json`, held in memory. */
import { conflict } from '../errors.js';
import { JsonFile } from '../storage/index.js';
import type { UserRecord, UserStore } from './user-store.js';

interface UsersDoc {
  version: 1;
  users: UserRecord[];
}

/** Loads `file` (an empty list when absent) and returns the store. */
export async function createFsUserStore(file: string): Promise<UserStore> {
  const doc = new JsonFile<UsersDoc>(file, () => ({ version: 1, users: [] }));
  await doc.load();
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
