import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeActivity } from './activity.js';
import { WorkspaceService } from './service.js';
import type { Template } from './templates.js';

const TEMPLATES = new Map<string, Template>([
  ['blank', { name: 'blank', description: '', nodes: [] }],
  [
    'pair',
    {
      name: 'pair',
      description: '',
      nodes: [
        { role_id: 'team-lead', label: 'Lead', parent: null, x: 0, y: 0, starting_context: 'lead' },
        { role_id: 'team-dev', label: 'Dev', parent: 'team-lead', x: 0, y: 100, starting_context: 'dev' },
      ],
    },
  ],
]);

describe('WorkspaceService', () => {
  let dir: string;
  const make = () => new WorkspaceService({ dir, templates: TEMPLATES, activity: new NodeActivity() });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-ws-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a new service on the same folder loads every structure with its nodes and members', async () => {
    const first = make();
    await first.load();
    const created = await first.create({ name: 'Kept', template: 'pair', ownerId: 'u1' });
    await first.addNode(created.id, { role_id: 'team-qa', label: 'QA', parent_id: created.agents[0]!.id }, 'u1');
    await mkdir(join(dir, 'interrupted-creation'));
    const second = make();
    await second.load();
    expect(second.has(created.id)).toBe(true);
    expect(second.has('interrupted-creation')).toBe(false);
    expect(second.detail(created.id).agents.map((node) => node.role_id)).toEqual(['team-lead', 'team-dev', 'team-qa']);
    expect(second.roleOf(created.id, 'u1')).toBe('owner');
    expect(second.summaries('u1')).toEqual([expect.objectContaining({ id: created.id, role: 'owner', node_count: 3 })]);
    expect(second.summaries('someone-else')).toEqual([]);
  });

  it('a structure made by the administrator has no members; summaries(null) lists it as owner', async () => {
    const service = make();
    await service.load();
    const created = await service.create({ name: 'Admin', template: 'blank', ownerId: null });
    expect(service.members(created.id)).toEqual([]);
    expect(service.summaries(null)).toEqual([expect.objectContaining({ id: created.id, role: 'owner' })]);
  });

  it('restoring a node whose parent is gone makes it a child of the root', async () => {
    const service = make();
    await service.load();
    const s = await service.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    const dev = s.agents[1]!;
    const intern = await service.addNode(s.id, { role_id: 'team-intern', label: 'Intern', parent_id: dev.id }, 'u1');
    await service.removeNode(s.id, 'team-intern', 'u1');
    await service.removeNode(s.id, 'team-dev', 'u1');
    const restored = await service.restoreNode(s.id, 'team-intern', 'u1');
    expect(restored.id).toBe(intern.id);
    expect(restored.parent_id).toBe(s.agents[0]!.id);
    const lines = (await readFile(join(service.nodeDir(s.id, intern.id), 'timeline.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(['created', 'archived', 'restored']);
  });

  it('setMember adds a member or changes the role of an existing one', async () => {
    const service = make();
    await service.load();
    const s = await service.create({ name: 'S', template: 'blank', ownerId: 'u1' });
    await service.setMember(s.id, 'u2', 'viewer');
    expect(service.roleOf(s.id, 'u2')).toBe('viewer');
    await service.setMember(s.id, 'u2', 'operator');
    expect(service.roleOf(s.id, 'u2')).toBe('operator');
    expect(service.members(s.id)).toHaveLength(2);
  });

  it('calls onArchived once the node is in the archive', async () => {
    const archived: string[] = [];
    const service = new WorkspaceService({
      dir,
      templates: TEMPLATES,
      activity: new NodeActivity(),
      onArchived: async (_structureId, node) => {
        archived.push(node.role_id);
      },
    });
    await service.load();
    const s = await service.create({ name: 'S', template: 'pair', ownerId: 'u1' });
    await service.removeNode(s.id, 'team-dev', 'u1');
    expect(archived).toEqual(['team-dev']);
    expect(service.archive(s.id).map((node) => node.role_id)).toEqual(['team-dev']);
  });
});
