/**
 * The contract of a `StructureStore` and of the workspace log store, run against every
 * backend (the filesystem home, PostgreSQL): a structure created whole, changes
 * journaled and replayed after a reopen (also past a compaction), node timelines and
 * log entries newest first.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/core/structures/changes.js';
import type { WorkspaceLogStore } from '../../src/core/structures/log.js';
import type { StructureStore } from '../../src/core/structures/structure-store.js';
import type { LogEntry, NodeRecord, StructureRecord } from '../../src/core/structures/types.js';
import { fixtures, type Fixture } from './fixture.js';

const node = (roleId: string, parentId: string | null = null): NodeRecord => ({
  id: randomUUID(),
  role_id: roleId,
  label: roleId,
  parent_id: parentId,
  x: 0,
  y: 0,
  starting_context: '',
  container_url: null,
  created_at: '2030-01-01T00:00:00.000Z',
});

const structure = (): StructureRecord => ({
  version: 1,
  id: randomUUID(),
  name: 'S',
  template: 'blank',
  created_at: '2030-01-01T00:00:00.000Z',
  members: [{ user_id: randomUUID(), role: 'owner', added_at: '2030-01-01T00:00:00.000Z' }],
  agents: [],
  archive: [],
});

/** Registers the structure store contract for one backend (the store compacts after a few changes). */
export function describeStructureStore(name: string, make: () => Promise<Fixture<StructureStore>>): void {
  describe(`StructureStore contract: ${name}`, () => {
    const fresh = fixtures(make);

    it('creates a structure whole and replays its journal after a reopen, past compactions', async () => {
      const { store, reopen } = await fresh();
      const record = structure();
      await store.create(record);
      const lead = node('team-lead');
      const entries: JournalEntry[] = [{ seq: 1, at: '2030-01-01T00:00:01.000Z', actor: 'a', node_id: lead.id, change: { op: 'node.add', node: lead } }];
      for (let i = 2; i <= 40; i++) {
        entries.push({ seq: i, at: '2030-01-01T00:00:02.000Z', actor: 'a', node_id: lead.id, change: { op: 'node.update', id: lead.id, set: { label: `Lead ${i}` } } });
      }
      const live = structuredClone(record);
      for (let i = 0; i < entries.length; i += 3) {
        const batch = entries.slice(i, i + 3);
        await store.append(record.id, batch);
        live.agents = [{ ...lead, label: batch.at(-1)!.change.op === 'node.add' ? lead.label : `Lead ${batch.at(-1)!.seq}` }];
        await store.applied(live, batch.at(-1)!.seq);
      }
      const again = await reopen();
      const loaded = await again.load(record.id);
      expect(loaded?.seq).toBe(40);
      expect(loaded?.record.agents.map((agent) => agent.label)).toEqual(['Lead 40']);
      expect((await again.loadAll()).map((entry) => entry.record.id)).toContain(record.id);
      expect(await again.load(randomUUID())).toBeUndefined();
      expect(await again.load('not-a-uuid')).toBeUndefined();
      const timeline = await again.timeline(record.id, lead.id);
      expect(timeline).toHaveLength(40);
      expect(timeline[0]).toEqual({ type: 'created', actor: 'a', at: '2030-01-01T00:00:01.000Z' });
      expect(timeline[1]).toEqual({ type: 'updated', actor: 'a', at: '2030-01-01T00:00:02.000Z', fields: ['label'] });
      expect(await again.timeline(record.id, randomUUID())).toEqual([]);
      expect(await again.journal(record.id)).toEqual(entries);
      await again.close();
    });

    it('restores a structure copied from elsewhere: its record as it stands, its journal as history only', async () => {
      const { store, reopen } = await fresh();
      const lead = node('team-lead');
      const entries: JournalEntry[] = [
        { seq: 1, at: '2030-01-01T00:00:01.000Z', actor: 'a', node_id: lead.id, change: { op: 'node.add', node: lead } },
        { seq: 2, at: '2030-01-01T00:00:02.000Z', actor: 'b', node_id: lead.id, change: { op: 'node.update', id: lead.id, set: { label: 'Chief' } } },
      ];
      // The record already includes both changes: applying them again would add the node twice.
      const record = { ...structure(), agents: [{ ...lead, label: 'Chief' }] };
      await store.restore(record, 2, entries);
      const again = await reopen();
      expect(await again.load(record.id)).toEqual({ record, seq: 2 });
      expect(await again.journal(record.id)).toEqual(entries);
      expect((await again.timeline(record.id, lead.id)).map((entry) => entry.type)).toEqual(['created', 'updated']);
      // Changes go on after the restored journal.
      const third: JournalEntry = { seq: 3, at: '2030-01-01T00:00:03.000Z', actor: 'c', node_id: lead.id, change: { op: 'node.update', id: lead.id, set: { label: 'Boss' } } };
      await again.append(record.id, [third]);
      const afterThird = await reopen();
      expect((await afterThird.load(record.id))?.record.agents.map((agent) => agent.label)).toEqual(['Boss']);
      expect(await afterThird.journal(record.id)).toEqual([...entries, third]);
      await again.close();
      await afterThird.close();
    });
  });
}

/** Registers the workspace log store contract for one backend. */
export function describeWorkspaceLogStore(name: string, make: () => Promise<Fixture<WorkspaceLogStore>>): void {
  describe(`WorkspaceLogStore contract: ${name}`, () => {
    const fresh = fixtures(make);

    it('keeps entries per structure in order and reads the newest first, also after a reopen', async () => {
      const fixture = await fresh();
      const [a, b] = [randomUUID(), randomUUID()];
      const entry = (title: string): LogEntry => ({ id: randomUUID(), created_at: '2030-01-01T00:00:00.000Z', type: 'decision', title, body: `why ${title}`, role_id: 'team-lead', node_id: randomUUID(), run_id: randomUUID() });
      await fixture.store.append(a, [entry('one'), entry('two')]);
      await fixture.store.append(b, [entry('other')]);
      await fixture.store.append(a, [entry('three')]);
      const again = await fixture.reopen();
      expect((await again.read(a, 10)).map((e) => e.title)).toEqual(['three', 'two', 'one']);
      expect((await again.read(a, 2)).map((e) => e.title)).toEqual(['three', 'two']);
      expect((await again.read(b, 10)).map((e) => e.body)).toEqual(['why other']);
      expect(await again.read(randomUUID(), 10)).toEqual([]);
    });
  });
}
