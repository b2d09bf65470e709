/**
 * The contract of an `AuditStore`, run against every backend (the filesystem home,
 * PostgreSQL): entries read back newest first after a reopen, each filter narrowing
 * (structure, actions, actor by id or e-mail, time window), and paging with `before`.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuditStore } from '../../src/core/audit/index.js';
import type { AuditAction, AuditEntry } from '../../src/core/schemas/index.js';
import { fixtures, type Fixture } from './fixture.js';

export function describeAuditStore(name: string, make: () => Promise<Fixture<AuditStore>>): void {
  describe(`AuditStore contract: ${name}`, () => {
    const fresh = fixtures(make);

    const [a, b] = [randomUUID(), randomUUID()];
    const alice = randomUUID();
    let minute = 0;
    const entry = (action: AuditAction, structureId: string | null, actor = alice): AuditEntry => ({
      id: randomUUID(),
      at: new Date(Date.UTC(2030, 0, 1, 0, minute++)).toISOString(),
      action,
      actor: { kind: 'user', id: actor, email: actor === alice ? 'alice@example.com' : null },
      structure_id: structureId,
      target: structureId ? { type: 'structure', id: structureId } : null,
      status: 200,
      ip: '127.0.0.1',
      user_agent: 'contract/1',
      request_id: `req-${minute}`,
    });

    it('reads entries back newest first, filtered, after a reopen', async () => {
      const fixture = await fresh();
      const written = [
        entry('structure.create', a),
        entry('node.add', a),
        entry('user.create', null),
        entry('skill.write', b, randomUUID()),
        entry('skill.delete', a),
      ];
      for (const one of written) await fixture.store.append(one);
      const store = await fixture.reopen();
      const newest = [...written].reverse();
      expect(await store.read({ limit: 100 })).toEqual(newest);
      expect(await store.read({ limit: 2 })).toEqual(newest.slice(0, 2));
      expect((await store.read({ structureId: a, limit: 100 })).map((e) => e.action)).toEqual(['skill.delete', 'node.add', 'structure.create']);
      expect((await store.read({ actions: ['node.add', 'skill.write'], limit: 100 })).map((e) => e.action)).toEqual(['skill.write', 'node.add']);
      expect((await store.read({ actor: 'alice@example.com', limit: 100 })).length).toBe(4);
      expect((await store.read({ actor: alice, structureId: b, limit: 100 })).length).toBe(0);
      expect(await store.read({ since: written[1]!.at, until: written[3]!.at, limit: 100 })).toEqual([written[2], written[1]]);
      expect(await store.read({ structureId: randomUUID(), limit: 100 })).toEqual([]);
    });

    it('pages with before (an unknown id pages to nothing)', async () => {
      const fixture = await fresh();
      const written = Array.from({ length: 5 }, () => entry('node.update', a));
      for (const one of written) await fixture.store.append(one);
      expect(await fixture.store.read({ before: written[3]!.id, limit: 2 })).toEqual([written[2], written[1]]);
      expect(await fixture.store.read({ before: written[0]!.id, limit: 2 })).toEqual([]);
      expect(await fixture.store.read({ before: randomUUID(), limit: 2 })).toEqual([]);
    });
  });
}
