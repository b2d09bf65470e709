import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JournalEntry } from './changes.js';
import { structureServices } from '../../../test/support/structure-services.js';
import { createFsStructureStore } from './fs-structure-store.js';
import type { StructureStore } from './structure-store.js';

/** The filesystem store with its appends recorded, and held until released when `hold` is set. */
function watched(inner: StructureStore) {
  const appends: JournalEntry[][] = [];
  let gate: { promise: Promise<void>; release: () => void; entered: Promise<void>; enter: () => void } | undefined;
  let failNext: Error | undefined;
  const store: StructureStore = {
    ...inner,
    loadAll: () => inner.loadAll(),
    load: (id) => inner.load(id),
    create: (record) => inner.create(record),
    applied: (record, seq) => inner.applied(record, seq),
    timeline: (structureId, nodeId) => inner.timeline(structureId, nodeId),
    close: () => inner.close(),
    async append(structureId, entries) {
      appends.push(entries);
      if (gate) {
        gate.enter();
        await gate.promise;
      }
      if (failNext) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
      await inner.append(structureId, entries);
    },
  };
  return {
    store,
    appends,
    hold() {
      let release = () => undefined as void;
      let enter = () => undefined as void;
      const promise = new Promise<void>((resolve) => {
        release = resolve;
      });
      const entered = new Promise<void>((resolve) => {
        enter = resolve;
      });
      gate = { promise, release, entered, enter };
    },
    /** Resolves once an append has reached the held gate (the write is in flight). */
    inFlight(): Promise<void> {
      return gate?.entered ?? Promise.resolve();
    },
    release() {
      gate?.release();
      gate = undefined;
    },
    failNextAppend(error: Error) {
      failNext = error;
    },
  };
}

describe('StructureRegistry: concurrent changes to one structure are group-committed', () => {
  let dir: string;
  const closers: (() => Promise<void>)[] = [];
  const make = async () => {
    const fs = createFsStructureStore({ dir });
    const spy = watched(fs);
    closers.push(() => fs.close());
    return { spy, ...(await structureServices(spy.store, dir)) };
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-registry-'));
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await rm(dir, { recursive: true, force: true });
  });

  it('adds that arrive while a commit is in flight are decided in order against each other, journaled by one append, and seen only once durable', async () => {
    const { spy, registry, structures, nodes } = await make();
    const s = await structures.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    const lead = s.agents[0]!.id;
    spy.hold();
    const first = nodes.add(s.id, { role_id: 'team-a', label: 'A', parent_id: lead }, 'u1');
    await spy.inFlight();
    // These arrive while the first is being journaled: they form the next group.
    const rest = Array.from({ length: 10 }, (_, i) => nodes.add(s.id, { role_id: `team-b${i}`, label: `B${i}`, parent_id: lead }, `u${i}`));
    // The same role twice in one group: the later one is refused, seeing the earlier one.
    const duplicate = nodes.add(s.id, { role_id: 'team-b3', label: 'Again', parent_id: lead }, 'u1');
    // A second root in the group: refused as always.
    const root = nodes.add(s.id, { role_id: 'team-root', label: 'Root', parent_id: null }, 'u1');
    // One turn of the event loop lets the queued adds reach the registry (no event marks that).
    await new Promise((resolve) => setImmediate(resolve));
    expect(spy.appends).toHaveLength(1);
    // Nothing is visible before it is on disk.
    expect(registry.get(s.id).agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev']);
    expect(registry.nodeByRole(s.id, 'team-a')).toBeUndefined();
    spy.release();
    await first;
    const added = await Promise.all(rest);
    await expect(duplicate).rejects.toMatchObject({ status: 409 });
    await expect(root).rejects.toMatchObject({ status: 400 });
    // The first add alone, then the ten waiting ones together.
    expect(spy.appends.map((entries) => entries.length)).toEqual([1, 10]);
    expect(spy.appends[1]!.map((entry) => [entry.seq, entry.actor])).toEqual(added.map((_, i) => [i + 2, `u${i}`]));
    expect(registry.get(s.id).agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev', 'team-a', ...added.map((node) => node.role_id)]);
    expect(added.map((node) => node.role_id)).toEqual(Array.from({ length: 10 }, (_, i) => `team-b${i}`));
    // The journal holds each change once, in order, and a restart sees the same structure.
    const journal = (await readFile(join(dir, s.id, 'changes.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as JournalEntry);
    expect(journal.map((entry) => entry.seq)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    const again = await make();
    expect(again.registry.get(s.id)).toEqual(registry.get(s.id));
  });

  it('a group of mixed changes (add, update, move, archive, restore, members) decides each on the ones before it, and leaves the record untouched until durable', async () => {
    const { spy, registry, structures, nodes, members } = await make();
    const s = await structures.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    const [lead, dev] = s.agents;
    await nodes.add(s.id, { role_id: 'team-qa', label: 'QA', parent_id: dev!.id }, 'u1');
    const before = structuredClone(registry.get(s.id));
    spy.hold();
    const blocker = members.set(s.id, 'u9', 'viewer');
    await spy.inFlight();
    const group = [
      nodes.update(s.id, 'team-qa', { label: 'Quality', x: 7 }, 'u1'),
      nodes.update(s.id, 'team-qa', { parent_id: lead!.id }, 'u1'),
      // The move above left team-dev without children, so it may be archived now.
      nodes.remove(s.id, 'team-dev', 'u1'),
      nodes.restore(s.id, 'team-dev', 'u1'),
      nodes.add(s.id, { role_id: 'team-new', label: 'New', parent_id: dev!.id }, 'u1'),
      members.set(s.id, 'u2', 'operator'),
      members.set(s.id, 'u2', 'viewer'),
      members.remove(s.id, 'u9'),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    expect(registry.get(s.id)).toEqual(before);
    spy.release();
    await blocker;
    const [updated, moved, archived, restored, added] = (await Promise.all(group)) as unknown as [
      { label: string; x: number },
      { parent_id: string },
      { archived_at: string },
      { id: string; parent_id: string },
      { parent_id: string },
    ];
    expect(spy.appends.map((entries) => entries.length)).toEqual([1, 1, 8]);
    expect(updated).toMatchObject({ label: 'Quality', x: 7 });
    expect(moved.parent_id).toBe(lead!.id);
    expect(archived.archived_at).toEqual(expect.any(String));
    expect(restored.id).toBe(dev!.id);
    expect(added.parent_id).toBe(dev!.id);
    const record = registry.get(s.id);
    expect(record.agents.map((node) => [node.role_id, node.label, node.parent_id])).toEqual([
      ['team-lead', 'Lead', null],
      ['team-qa', 'Quality', lead!.id],
      ['team-dev', 'Dev', lead!.id],
      ['team-new', 'New', dev!.id],
    ]);
    expect(record.archive).toEqual([]);
    expect(record.members.map((member) => [member.user_id, member.role])).toEqual([
      ['u1', 'owner'],
      ['u2', 'viewer'],
    ]);
    const again = await make();
    expect(again.registry.get(s.id)).toEqual(record);
  });

  it('the by-id node index follows each change on trial and for real: an add under a node archived earlier in its group is refused, a failed append leaves no node behind', async () => {
    const { spy, registry, structures, nodes, members } = await make();
    const s = await structures.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    const dev = s.agents[1]!;
    spy.hold();
    const blocker = members.set(s.id, 'u9', 'viewer');
    await spy.inFlight();
    const archived = nodes.remove(s.id, 'team-dev', 'u1');
    const orphan = nodes.add(s.id, { role_id: 'team-orphan', label: 'Orphan', parent_id: dev.id }, 'u1');
    const restored = nodes.restore(s.id, 'team-dev', 'u1');
    const child = nodes.add(s.id, { role_id: 'team-child', label: 'Child', parent_id: dev.id }, 'u1');
    await new Promise((resolve) => setImmediate(resolve));
    // Decided on trial and undone: the index still names the node as it was.
    expect(registry.nodeById(s.id, dev.id)).toBe(registry.nodeByRole(s.id, 'team-dev'));
    spy.release();
    await blocker;
    await archived;
    await expect(orphan).rejects.toMatchObject({ status: 400 });
    await restored;
    const added = await child;
    expect(registry.nodeById(s.id, dev.id)).toBe(registry.nodeByRole(s.id, 'team-dev'));
    expect(registry.nodeById(s.id, added.id)).toBe(registry.nodeByRole(s.id, 'team-child'));
    spy.failNextAppend(new Error('disk full'));
    await expect(nodes.add(s.id, { role_id: 'team-lost', label: 'Lost', parent_id: dev.id }, 'u1')).rejects.toThrow('disk full');
    const lost = spy.appends.at(-1)![0]!.node_id!;
    expect(registry.nodeById(s.id, lost)).toBeUndefined();
    expect(registry.get(s.id).agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev', 'team-child']);
    const again = await make();
    expect(again.registry.nodeById(s.id, added.id)).toEqual(registry.nodeById(s.id, added.id));
    expect(again.registry.nodeById(s.id, added.id)?.role_id).toBe('team-child');
    expect(again.registry.nodeById(s.id, lost)).toBeUndefined();
  });

  it('a failed append refuses every change of its group and leaves the structure as it was; later changes go on', async () => {
    const { spy, registry, structures, nodes } = await make();
    const s = await structures.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    const lead = s.agents[0]!.id;
    spy.hold();
    const first = nodes.add(s.id, { role_id: 'team-a', label: 'A', parent_id: lead }, 'u1');
    await spy.inFlight();
    const group = [nodes.add(s.id, { role_id: 'team-b', label: 'B', parent_id: lead }, 'u1'), nodes.add(s.id, { role_id: 'team-c', label: 'C', parent_id: lead }, 'u1')];
    spy.failNextAppend(new Error('disk full'));
    spy.release();
    await expect(first).rejects.toThrow('disk full');
    for (const add of group) await add;
    expect(registry.get(s.id).agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev', 'team-b', 'team-c']);
    const journal = (await readFile(join(dir, s.id, 'changes.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as JournalEntry);
    expect(journal.map((entry) => [entry.seq, entry.node_id === undefined])).toEqual([
      [1, false],
      [2, false],
    ]);
  });
});
