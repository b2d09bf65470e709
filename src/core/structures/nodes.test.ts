import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { structureServices } from '../../../test/support/structure-services.js';
import { createFsStructureStore } from './fs-structure-store.js';
import type { NodeRecord } from './types.js';

describe('structures, nodes and members over the journaled store', () => {
  let dir: string;
  const stores: { close(): Promise<void> }[] = [];
  /** A fresh set of services on the same folder, as after a restart. */
  const make = async (options: { compactBytes?: number; onArchived?: (structureId: string, node: NodeRecord) => Promise<void> } = {}) => {
    const store = createFsStructureStore({ dir, ...(options.compactBytes === undefined ? {} : { compactBytes: options.compactBytes }) });
    stores.push(store);
    return structureServices(store, dir, options);
  };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-ws-'));
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a restart loads every structure with its nodes and members from the base and the journal', async () => {
    const first = await make();
    const created = await first.structures.create({ name: 'Kept', template: 'pair', ownerId: 'u1' });
    await first.nodes.add(created.id, { role_id: 'team-qa', label: 'QA', parent_id: created.agents[0]!.id }, 'u1');
    await first.nodes.update(created.id, 'team-qa', { label: 'Quality', x: 5 }, 'u1');
    await first.members.set(created.id, 'u2', 'viewer');
    await mkdir(join(dir, '7c9e6679-7425-40de-944b-e07fc1f90ae7'));
    const second = await make();
    expect(second.structures.has(created.id)).toBe(true);
    expect(second.structures.has('7c9e6679-7425-40de-944b-e07fc1f90ae7')).toBe(false);
    expect(second.structures.detail(created.id).agents.map((node) => [node.role_id, node.label, node.x])).toEqual([
      ['team-lead', 'Lead', 0],
      ['team-dev', 'Dev', 0],
      ['team-qa', 'Quality', 5],
    ]);
    expect(second.members.roleOf(created.id, 'u1')).toBe('owner');
    expect(second.members.roleOf(created.id, 'u2')).toBe('viewer');
    expect(second.structures.summaries('u1')).toEqual([expect.objectContaining({ id: created.id, role: 'owner', node_count: 3 })]);
    expect(second.structures.summaries('someone-else')).toEqual([]);
  });

  it('a change appends one journal line instead of rewriting the structure; the journal is folded into a new base past its threshold', async () => {
    const services = await make({ compactBytes: 2048 });
    const created = await services.structures.create({ name: 'Big', template: 'pair', ownerId: 'u1' });
    const base = join(dir, created.id, 'structure.json');
    const before = await readFile(base, 'utf8');
    await services.nodes.add(created.id, { role_id: 'team-n0', label: 'N0', parent_id: created.agents[0]!.id }, 'u1');
    expect(await readFile(base, 'utf8')).toBe(before);
    expect((await readFile(join(dir, created.id, 'changes.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1);
    for (let i = 1; i < 40; i++) await services.nodes.add(created.id, { role_id: `team-n${i}`, label: `N${i}`, parent_id: created.agents[0]!.id }, 'u1');
    const folded = JSON.parse(await readFile(base, 'utf8')) as { seq: number; agents: unknown[] };
    expect(folded.seq).toBeGreaterThan(0);
    expect(folded.agents.length).toBeGreaterThan(2);
    // The journal is kept whole (it is the nodes' timeline) and a restart reads only what follows the base.
    expect((await readFile(join(dir, created.id, 'changes.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(40);
    const again = await make();
    expect(again.structures.record(created.id).agents).toHaveLength(42);
  });

  it('a line torn by a crash at the end of the journal is ignored, and appends go on after it', async () => {
    const first = await make();
    const created = await first.structures.create({ name: 'Torn', template: 'pair', ownerId: 'u1' });
    await first.nodes.add(created.id, { role_id: 'team-kept', label: 'Kept', parent_id: created.agents[0]!.id }, 'u1');
    await writeFile(join(dir, created.id, 'changes.jsonl'), '{"seq":2,"at":"x","actor":"u1","change":{"op":"node.upd', { flag: 'a' });
    const second = await make();
    expect(second.structures.record(created.id).agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev', 'team-kept']);
    await second.nodes.add(created.id, { role_id: 'team-next', label: 'Next', parent_id: created.agents[0]!.id }, 'u1');
    const third = await make();
    expect(third.structures.record(created.id).agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev', 'team-kept', 'team-next']);
  });

  it('a structure made by the administrator has no members; summaries(null) lists it as owner', async () => {
    const services = await make();
    const created = await services.structures.create({ name: 'Admin', template: 'blank', ownerId: null });
    expect(services.members.list(created.id)).toEqual([]);
    expect(services.structures.summaries(null)).toEqual([expect.objectContaining({ id: created.id, role: 'owner' })]);
  });

  it('restoring a node whose parent is gone makes it a child of the root; the node timeline tells its story', async () => {
    const services = await make();
    const s = await services.structures.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    const dev = s.agents[1]!;
    const intern = await services.nodes.add(s.id, { role_id: 'team-intern', label: 'Intern', parent_id: dev.id }, 'u1');
    await services.nodes.update(s.id, 'team-intern', { label: 'Junior' }, 'u2');
    await services.nodes.remove(s.id, 'team-intern', 'u1');
    await services.nodes.remove(s.id, 'team-dev', 'u1');
    const restored = await services.nodes.restore(s.id, 'team-intern', 'u1');
    expect(restored.id).toBe(intern.id);
    expect(restored.parent_id).toBe(s.agents[0]!.id);
    expect(restored.label).toBe('Junior');
    const timeline = await services.nodes.timeline(s.id, intern.id);
    expect(timeline.map((entry) => [entry.type, entry.actor])).toEqual([
      ['created', 'u1'],
      ['updated', 'u2'],
      ['archived', 'u1'],
      ['restored', 'u1'],
    ]);
    expect(timeline[1]!.fields).toEqual(['label']);
  });

  it('members.set adds a member or changes the role of an existing one', async () => {
    const services = await make();
    const s = await services.structures.create({ name: 'S', template: 'blank', ownerId: 'u1' });
    await services.members.set(s.id, 'u2', 'viewer');
    expect(services.members.roleOf(s.id, 'u2')).toBe('viewer');
    await services.members.set(s.id, 'u2', 'operator');
    expect(services.members.roleOf(s.id, 'u2')).toBe('operator');
    expect(services.members.list(s.id)).toHaveLength(2);
  });

  it('calls onArchived once the node is in the archive', async () => {
    const archived: string[] = [];
    const services = await make({
      onArchived: async (_structureId, node) => {
        archived.push(node.role_id);
      },
    });
    const s = await services.structures.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    await services.nodes.remove(s.id, 'team-dev', 'u1');
    expect(archived).toEqual(['team-dev']);
    expect(services.nodes.archive(s.id).map((node) => node.role_id)).toEqual(['team-dev']);
  });

  it('the cached detail bytes follow every change of the structure and of a node\'s live state', async () => {
    const { structures, nodes, activity } = await make();
    const created = await structures.create({ name: 'Cached', template: 'pair', ownerId: 'u1' });
    const read = () => JSON.parse(structures.detailBytes(created.id).toString('utf8')) as ReturnType<typeof structures.detail>;
    expect(read()).toEqual(structures.detail(created.id));
    expect(structures.detailBytes(created.id)).toBe(structures.detailBytes(created.id));

    await nodes.add(created.id, { role_id: 'team-qa', label: 'QA', parent_id: created.agents[0]!.id }, 'u1');
    expect(read().agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev', 'team-qa']);
    await nodes.update(created.id, 'team-qa', { label: 'Quality' }, 'u1');
    expect(read().agents[2]!.label).toBe('Quality');

    const dev = created.agents[1]!.id;
    activity.begin(dev, created.id);
    expect(read().agents[1]!.state).toBe('working');
    activity.begin(dev, created.id);
    activity.end(dev, created.id);
    expect(read().agents[1]!.state).toBe('working');
    activity.end(dev, created.id);
    expect(read().agents[1]!.state).toBe('idle');
    expect(read()).toEqual(structures.detail(created.id));

    // A turn in another structure leaves this one's cached bytes as they are (the same Buffer).
    const other = await structures.create({ name: 'Other', template: 'pair', ownerId: 'u1' });
    const before = structures.detailBytes(created.id);
    activity.begin(other.agents[0]!.id, other.id);
    expect(structures.detailBytes(created.id)).toBe(before);
    expect(activity.revisionOf(created.id)).toBe(2);
    expect(activity.revisionOf(other.id)).toBe(1);
    activity.end(other.agents[0]!.id, other.id);
  });
});
