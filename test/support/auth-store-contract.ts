/**
 * The contracts of `UserStore` and `KeyStore`, run against every backend (the
 * filesystem home, PostgreSQL): lookups by hash, id and address, uniqueness, durability
 * across a reopen, revocation and last use behave the same whichever store a service has.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KeyStore, McpKeyRecord } from '../../src/core/auth/key-store.js';
import type { UserRecord, UserStore } from '../../src/core/auth/user-store.js';
import { fixtures, type Fixture } from './fixture.js';

export type { Fixture } from './fixture.js';

const user = (email: string): UserRecord => ({ id: randomUUID(), email, token_hash: randomUUID().replace(/-/g, ''), created_at: new Date().toISOString() });

/** Registers the user store contract for one backend. */
export function describeUserStore(name: string, make: () => Promise<Fixture<UserStore>>): void {
  describe(`UserStore contract: ${name}`, () => {
    const open = fixtures(make);

    it('finds a stored user by token hash, id and address, and counts users', async () => {
      const { store } = await open();
      const alice = user('alice@example.com');
      await store.insert(alice);
      await store.insert(user('bob@example.com'));
      expect(await store.byTokenHash(alice.token_hash)).toEqual(alice);
      expect(await store.byId(alice.id)).toEqual(alice);
      expect(await store.byEmail('alice@example.com')).toEqual(alice);
      expect(await store.byEmail('carol@example.com')).toBeUndefined();
      expect(await store.byTokenHash('0'.repeat(64))).toBeUndefined();
      expect(await store.count()).toBe(2);
      expect((await store.list()).map((listed) => listed.email).sort()).toEqual(['alice@example.com', 'bob@example.com']);
    });

    it('refuses a second user with the same address (409) and keeps the first', async () => {
      const { store } = await open();
      const first = user('same@example.com');
      await store.insert(first);
      await expect(store.insert(user('same@example.com'))).rejects.toMatchObject({ code: 'conflict' });
      expect(await store.byEmail('same@example.com')).toEqual(first);
      expect(await store.count()).toBe(1);
    });

    it('keeps users across a reopen', async () => {
      const fixture = await open();
      const kept = user('kept@example.com');
      await fixture.store.insert(kept);
      const again = await fixture.reopen();
      expect(await again.byTokenHash(kept.token_hash)).toEqual(kept);
    });
  });
}

const key = (structureId: string, nodeId: string, label: string, createdAt: string): McpKeyRecord => ({
  id: randomUUID(),
  structure_id: structureId,
  node_id: nodeId,
  role_id: 'team-node',
  label,
  prefix: 'org_mcp_',
  token_hash: randomUUID().replace(/-/g, ''),
  created_at: createdAt,
  last_used_at: null,
  revoked_at: null,
});

/** Registers the key store contract for one backend. */
export function describeKeyStore(name: string, make: () => Promise<Fixture<KeyStore>>): void {
  describe(`KeyStore contract: ${name}`, () => {
    const open = fixtures(make);
    const structureId = randomUUID();
    const nodeId = randomUUID();

    it('lists the live keys of a node oldest first and finds them by hash', async () => {
      const { store } = await open();
      const older = key(structureId, nodeId, 'older', '2030-01-01T00:00:00.000Z');
      const newer = key(structureId, nodeId, 'newer', '2030-01-02T00:00:00.000Z');
      const elsewhere = key(structureId, randomUUID(), 'other node', '2030-01-01T00:00:00.000Z');
      for (const record of [older, elsewhere, newer]) await store.insert(record);
      expect((await store.liveOfNode(structureId, nodeId)).map((listed) => listed.label)).toEqual(['older', 'newer']);
      expect(await store.liveByHash(newer.token_hash)).toEqual(newer);
      expect(await store.liveByHash('f'.repeat(64))).toBeUndefined();
    });

    it('revokes a live key of its own node only, once', async () => {
      const { store } = await open();
      const record = key(structureId, nodeId, 'to revoke', '2030-01-01T00:00:00.000Z');
      await store.insert(record);
      expect(await store.revoke(structureId, randomUUID(), record.id, '2030-01-03T00:00:00.000Z')).toBeUndefined();
      expect(await store.liveByHash(record.token_hash)).toEqual(record);
      expect(await store.revoke(structureId, nodeId, record.id, '2030-01-03T00:00:00.000Z')).toMatchObject({ id: record.id, revoked_at: '2030-01-03T00:00:00.000Z' });
      expect(await store.liveByHash(record.token_hash)).toBeUndefined();
      expect(await store.liveOfNode(structureId, nodeId)).toEqual([]);
      expect(await store.revoke(structureId, nodeId, record.id, '2030-01-04T00:00:00.000Z')).toBeUndefined();
      expect((await store.list()).find((listed) => listed.id === record.id)?.revoked_at).toBe('2030-01-03T00:00:00.000Z');
    });

    it('records last use and keeps everything across a reopen', async () => {
      const fixture = await open();
      const record = key(structureId, nodeId, 'used', '2030-01-01T00:00:00.000Z');
      await fixture.store.insert(record);
      await fixture.store.recordUse(new Map([[record.id, '2030-01-05T00:00:00.000Z']]));
      const again = await fixture.reopen();
      expect(await again.liveByHash(record.token_hash)).toEqual({ ...record, last_used_at: '2030-01-05T00:00:00.000Z' });
    });
  });
}
