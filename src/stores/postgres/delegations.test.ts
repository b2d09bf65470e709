import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import type { DelegationNote } from '../../core/chat/delegation/types.js';
import type { ChatStore, RunLocation } from '../../core/chat/store.js';
import { createPgChatStore } from './chat.js';
import { listen, type Listener } from './notify.js';

const pg = usePostgres();

describe('PostgreSQL: delegations shared by the instances of a store', () => {
  const listeners: Listener[] = [];
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((listener) => listener.close()));
  });

  /** A store of one instance, listening for wake-ups. */
  const instance = async (): Promise<ChatStore> => {
    const listener = listen({ url: pg.url() });
    listeners.push(listener);
    await listener.ready;
    return (await pg.fixture((db) => createPgChatStore(db, { instanceId: randomUUID(), leaseMs: 15_000, listener }))()).store;
  };
  const structureId = randomUUID();
  const nodes = new Map<string, string>();
  const nodeOf = (roleId: string) => nodes.get(roleId) ?? (nodes.set(roleId, randomUUID()), nodes.get(roleId)!);
  /** Starts a run of `roleId`, delegated by `parent` when given. */
  const start = async (store: ChatStore, roleId: string, parent?: { where: RunLocation; root: string }, startedBy?: string): Promise<RunLocation> => {
    const where = { runId: randomUUID(), structureId, nodeId: nodeOf(roleId), roleId };
    const by = parent && { role_id: parent.where.roleId, run_id: parent.where.runId, root_run_id: parent.root };
    await store.startRun(
      where,
      { id: randomUUID(), run_id: where.runId, text: `task of ${roleId}`, attachments: [], created_at: '2030-01-01T00:00:00.000Z', ...(by ? { delegated_by: by } : {}) },
      { id: randomUUID(), run_id: where.runId, created_at: '2030-01-01T00:00:00.000Z' },
      startedBy ? { startedBy } : {},
    );
    return where;
  };
  const end = (store: ChatStore, where: RunLocation) =>
    store.endRun(where, { run_id: where.runId, status: 'complete', text: '', summary: 'done', artifacts: [], completed_at: '2030-01-01T00:00:01.000Z' });

  it('walks a run’s chain up to its root, counts delegations to the limit, and lists open runs and children in queue order', async () => {
    const store = await instance();
    const shared = store.cluster!.delegations;
    const root = await start(store, 'x-ceo', undefined, 'user-1');
    const child = await start(store, 'x-cfo', { where: root, root: root.runId }, 'user-1');
    const grandchild = await start(store, 'x-ctl', { where: child, root: root.runId }, 'user-1');
    expect(await shared.lineage(grandchild.runId)).toEqual({
      chain: [root, child, grandchild].map((where) => ({ runId: where.runId, nodeId: where.nodeId, roleId: where.roleId })),
      rootMessage: 'task of x-ceo',
      startedBy: 'user-1',
    });
    expect(await shared.openChildren(root.runId)).toEqual([child.runId]);
    expect(await shared.parentOf(grandchild.runId)).toBe(child.runId);
    expect(await shared.parentOf(root.runId)).toBeUndefined();
    expect((await shared.openRuns(structureId)).map((run) => [run.roleId, run.parentRunId])).toEqual([
      ['x-ceo', null],
      ['x-cfo', root.runId],
      ['x-ctl', child.runId],
    ]);
    expect(await shared.take(root.runId, 2)).toBe(true);
    expect(await shared.take(root.runId, 2)).toBe(true);
    expect(await shared.take(root.runId, 2)).toBe(false);
    await shared.giveBack(root.runId);
    expect(await shared.take(root.runId, 2)).toBe(true);
    // An ended run has no lineage, takes nothing and is no one's open child.
    await end(store, child);
    expect(await shared.lineage(child.runId)).toBeUndefined();
    expect(await shared.take(child.runId, 8)).toBe(false);
    expect(await shared.openChildren(root.runId)).toEqual([]);
  });

  it('hands a note to the instance that runs the delegating turn, once, in order', async () => {
    const [here, there] = [await instance(), await instance()];
    const parent = await start(here, 'x-ceo');
    const received: DelegationNote[][] = [];
    const arrived = new Promise<void>((resolve) => {
      here.cluster!.delegations.onNotes(
        (runId) => runId === parent.runId,
        (runId, notes) => {
          expect(runId).toBe(parent.runId);
          received.push(notes);
          if (received.flat().length === 2) resolve();
        },
      );
    });
    const started: DelegationNote = { kind: 'started', role_id: 'x-cfo', message: 'close', run_id: randomUUID() };
    const refused: DelegationNote = { kind: 'refused', role_id: 'x-ceo', message: 'back', refused: 'self', summary: 'x-ceo cannot delegate to itself' };
    await there.cluster!.delegations.note(parent.runId, started);
    await there.cluster!.delegations.note(parent.runId, refused);
    await arrived;
    expect(received.flat()).toEqual([started, refused]);
  });
});
