/**
 * The contract of `ReplyJournal`, run against every backend (the filesystem home,
 * PostgreSQL): a reply owed stays owed until sent, across a restart.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OwedReply, ReplyJournal } from '../../src/core/inbound/reply-journal.js';
import { fixtures, type Fixture } from './fixture.js';

const owed = (to: string): OwedReply => ({
  run_id: randomUUID(),
  structure_id: randomUUID(),
  node_id: randomUUID(),
  role_id: 'team-node',
  to,
  subject: 'Invoices',
  message_id: '<m1@example.com>',
  references: ['<m0@example.com>'],
});

/** Registers the reply journal contract for one backend. */
export function describeReplyJournal(name: string, make: () => Promise<Fixture<ReplyJournal>>): void {
  describe(`ReplyJournal contract: ${name}`, () => {
    const fresh = fixtures(make);

    it('gives back the replies owed and not sent, also after a restart', async () => {
      const fixture = await fresh();
      const first = owed('a@example.com');
      const second = owed('b@example.com');
      await fixture.store.owe(first);
      await fixture.store.owe(second);
      await fixture.store.sent(first.run_id);
      expect(await fixture.store.owed()).toEqual([second]);
      const again = await fixture.reopen();
      expect(await again.owed()).toEqual([second]);
      await again.sent(second.run_id);
      expect(await (await fixture.reopen()).owed()).toEqual([]);
    });

    it('owes a reply once: owing a run already owed or already answered changes nothing', async () => {
      const fixture = await fresh();
      const first = owed('a@example.com');
      await fixture.store.owe(first);
      await fixture.store.owe({ ...first, to: 'other@example.com' });
      expect(await fixture.store.pending()).toEqual([first]);
      await fixture.store.sent(first.run_id);
      await fixture.store.owe(first);
      expect(await fixture.store.pending()).toEqual([]);
      expect(await (await fixture.reopen()).owed()).toEqual([]);
    });

    it('lists the pending replies without taking them', async () => {
      const fixture = await fresh();
      const first = owed('a@example.com');
      const second = owed('b@example.com');
      await fixture.store.owe(first);
      await fixture.store.owe(second);
      await fixture.store.sent(second.run_id);
      expect(await fixture.store.pending()).toEqual([first]);
      // Still owed to whoever answers it.
      expect(await (await fixture.reopen()).pending()).toEqual([first]);
      expect(await fixture.store.owed()).toEqual([first]);
    });
  });
}
