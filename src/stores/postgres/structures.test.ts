/**
 * Two instances' structure registries on one database: what one changes, the other
 * brings in with `sync`; changes made on both at once are all kept (the later append is
 * refused as stale, reloaded and decided again), never lost.
 */
import { describe, expect, it } from 'vitest';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import { systemClock } from '../../core/util/index.js';
import { MemberService, NodeActivity, NodeService, StructureRegistry, StructureService, type Template } from '../../core/structures/index.js';
import { createPgStructureStore } from './structures.js';

const pg = usePostgres();
const TEMPLATES = new Map<string, Template>([['blank', { name: 'blank', description: '', nodes: [] }]]);

async function instance() {
  const store = createPgStructureStore(pg.open());
  const registry = new StructureRegistry(store, systemClock);
  await registry.load();
  const activity = new NodeActivity();
  return {
    registry,
    structures: new StructureService({ registry, templates: TEMPLATES, activity }),
    nodes: new NodeService({ registry, store, activity, dir: '/nonexistent' }),
    members: new MemberService(registry),
  };
}

describe('structures shared by instances on PostgreSQL', () => {
  it('a structure created and changed on A is read on B after a sync, with its timeline', async () => {
    const a = await instance();
    const b = await instance();
    const created = await a.structures.create({ name: 'Shared', template: 'blank', ownerId: '11111111-1111-4111-8111-111111111111' });
    expect(b.registry.has(created.id)).toBe(false);
    await b.registry.sync();
    expect(b.registry.get(created.id).name).toBe('Shared');
    const lead = await a.nodes.add(created.id, { role_id: 'team-lead', label: 'Lead' }, 'alice');
    const before = b.registry.version(created.id);
    await b.registry.sync();
    expect(b.nodes.get(created.id, 'team-lead').id).toBe(lead.id);
    expect(b.registry.version(created.id)).toBeGreaterThan(before);
    expect((await b.nodes.timelineOf(created.id, 'team-lead')).map((entry) => entry.type)).toEqual(['created']);
  });

  it('changes made on both instances at once are all kept, in one journal', async () => {
    const a = await instance();
    const b = await instance();
    const { id } = await a.structures.create({ name: 'Busy', template: 'blank', ownerId: '11111111-1111-4111-8111-111111111111' });
    const root = await a.nodes.add(id, { role_id: 'team-root', label: 'Root' }, 'a');
    await b.registry.sync();
    // B does not sync before its writes: its appends meet A's and are decided again.
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => a.nodes.add(id, { role_id: `team-a${i}`, label: `A${i}`, parent_id: root.id }, 'a')),
      ...Array.from({ length: 10 }, (_, i) => b.nodes.add(id, { role_id: `team-b${i}`, label: `B${i}`, parent_id: root.id }, 'b')),
    ]);
    await a.registry.sync();
    await b.registry.sync();
    const roles = (registry: StructureRegistry) => registry.get(id).agents.map((node) => node.role_id).sort();
    expect(roles(a.registry)).toHaveLength(21);
    expect(roles(b.registry)).toEqual(roles(a.registry));
    const fresh = await instance();
    expect(roles(fresh.registry)).toEqual(roles(a.registry));
  });

  it('a role taken on another instance meanwhile is refused with 409, not doubled', async () => {
    const a = await instance();
    const b = await instance();
    const { id } = await a.structures.create({ name: 'Race', template: 'blank', ownerId: '11111111-1111-4111-8111-111111111111' });
    await b.registry.sync();
    await a.nodes.add(id, { role_id: 'team-x', label: 'X' }, 'a');
    await expect(b.nodes.add(id, { role_id: 'team-x', label: 'X again' }, 'b')).rejects.toMatchObject({ code: 'conflict' });
    const fresh = await instance();
    expect(fresh.registry.get(id).agents.filter((node) => node.role_id === 'team-x')).toHaveLength(1);
  });
});
