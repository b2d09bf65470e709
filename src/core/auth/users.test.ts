import { describe, expect, it } from 'vitest';
import { hashToken } from './tokens.js';
import type { UserRecord, UserStore } from './user-store.js';
import { UserService } from './users.js';

/** A store in memory whose token lookups can be held until the test lets them answer. */
function heldStore() {
  const users = new Map<string, UserRecord>();
  const held: (() => void)[] = [];
  let holding = false;
  const store: UserStore = {
    async byTokenHash(hash) {
      // Read now, answer later: what a slow database does when a write lands meanwhile.
      const found = [...users.values()].find((u) => u.token_hash === hash);
      const answer = found && { ...found };
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
      return answer;
    },
    byId: async (id) => users.get(id),
    byEmail: async (email) => [...users.values()].find((u) => u.email === email),
    count: async () => users.size,
    list: async () => [...users.values()],
    async insert(record) {
      users.set(record.id, { ...record });
    },
    async setTokenHash(id, hash) {
      const user = users.get(id);
      if (!user) throw new Error(`no user ${id}`);
      users.set(id, { ...user, token_hash: hash });
    },
  };
  return {
    store,
    hold: () => (holding = true),
    release: () => {
      holding = false;
      for (const resolve of held.splice(0)) resolve();
    },
    pending: () => held.length,
  };
}

describe('UserService tokens', () => {
  it('refuses the old token after a replacement, even when a lookup of it read the store before the write', async () => {
    const backend = heldStore();
    const service = new UserService({ store: backend.store });
    const { user, token } = await service.create('ana@example.com');
    const oldHash = hashToken(token);
    service.forgetAll();

    backend.hold();
    const racing = service.byTokenHash(oldHash);
    expect(backend.pending()).toBe(1);
    const fresh = await service.replaceToken(user.id);
    backend.release();

    expect(await racing).toBeUndefined();
    expect(service.knownByTokenHash(oldHash)).toBeUndefined();
    expect(await service.byTokenHash(oldHash)).toBeUndefined();
    expect((await service.byTokenHash(hashToken(fresh)))?.id).toBe(user.id);
  });

  it('drops a cached old token at once', async () => {
    const backend = heldStore();
    const service = new UserService({ store: backend.store });
    const { user, token } = await service.create('ben@example.com');
    expect(service.knownByTokenHash(hashToken(token))?.id).toBe(user.id);
    await service.replaceToken(user.id);
    expect(service.knownByTokenHash(hashToken(token))).toBeUndefined();
    expect(await service.byTokenHash(hashToken(token))).toBeUndefined();
  });
});
