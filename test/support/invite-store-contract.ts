/**
 * The contract of `InviteStore`, run against every backend (the filesystem home,
 * PostgreSQL): re-inviting replaces, a claim succeeds once, a release gives it back,
 * a revoke takes a pending invite of its structure only.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { InviteRecord, InviteStore } from '../../src/core/structures/invite-store.js';
import { fixtures, type Fixture } from './fixture.js';

const invite = (structureId: string, email: string, createdAt: string): InviteRecord => ({
  id: randomUUID(),
  structure_id: structureId,
  email,
  role: 'viewer',
  token_hash: randomUUID().replace(/-/g, ''),
  status: 'pending',
  invited_by: 'owner@example.com',
  created_at: createdAt,
  expires_at: '2030-02-01T00:00:00.000Z',
  accepted_at: null,
});

/** Registers the invite store contract for one backend. */
export function describeInviteStore(name: string, make: () => Promise<Fixture<InviteStore>>): void {
  describe(`InviteStore contract: ${name}`, () => {
    const fresh = fixtures(make);

    it('lists pending invites newest first; a re-invite of the same address replaces the older one', async () => {
      const { store } = await fresh();
      const structureId = randomUUID();
      const first = invite(structureId, 'a@example.com', '2030-01-01T00:00:00.000Z');
      const other = invite(structureId, 'b@example.com', '2030-01-02T00:00:00.000Z');
      const again = invite(structureId, 'a@example.com', '2030-01-03T00:00:00.000Z');
      for (const record of [first, other, again]) await store.insert(record);
      expect((await store.pendingOf(structureId)).map((listed) => listed.id)).toEqual([again.id, other.id]);
      expect((await store.byTokenHash(first.token_hash))?.status).toBe('replaced');
      expect(await store.pendingOf(randomUUID())).toEqual([]);
    });

    it('claims a pending invite once; a release makes it pending again; all of it survives a reopen', async () => {
      const fixture = await fresh();
      const record = invite(randomUUID(), 'c@example.com', '2030-01-01T00:00:00.000Z');
      await fixture.store.insert(record);
      const claims = await Promise.all([fixture.store.claim(record.id, '2030-01-02T00:00:00.000Z'), fixture.store.claim(record.id, '2030-01-02T00:00:00.000Z')]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await fixture.store.byTokenHash(record.token_hash)).toMatchObject({ status: 'accepted', accepted_at: '2030-01-02T00:00:00.000Z' });
      await fixture.store.release(record.id);
      expect(await fixture.store.byTokenHash(record.token_hash)).toMatchObject({ status: 'pending', accepted_at: null });
      expect(await fixture.store.claim(record.id, '2030-01-04T00:00:00.000Z')).toBe(true);
      const again = await fixture.reopen();
      expect(await again.byTokenHash(record.token_hash)).toMatchObject({ status: 'accepted', accepted_at: '2030-01-04T00:00:00.000Z' });
      expect((await again.list()).map((listed) => listed.id)).toEqual([record.id]);
    });

    it('revokes a pending invite of its own structure once; the revocation survives a reopen', async () => {
      const fixture = await fresh();
      const structureId = randomUUID();
      const record = invite(structureId, 'd@example.com', '2030-01-01T00:00:00.000Z');
      await fixture.store.insert(record);
      expect(await fixture.store.revoke(randomUUID(), record.id)).toBeUndefined();
      expect(await fixture.store.revoke(structureId, record.id)).toMatchObject({ id: record.id, status: 'revoked' });
      expect(await fixture.store.revoke(structureId, record.id)).toBeUndefined();
      expect(await fixture.store.pendingOf(structureId)).toEqual([]);
      expect(await fixture.store.claim(record.id, '2030-01-02T00:00:00.000Z')).toBe(false);
      const again = await fixture.reopen();
      expect(await again.byTokenHash(record.token_hash)).toMatchObject({ status: 'revoked', accepted_at: null });
    });
  });
}
