import { describe, expect, it } from 'vitest';
import type { NodeRecord } from '../schemas/structures.js';
import { ENRICH_NEIGHBOURS, describeNode } from './enrich.js';

function node(id: string, parent: string | null): NodeRecord {
  return {
    id,
    role_id: `team-${id}`,
    label: `Node ${id}`,
    parent_id: parent,
    x: 0,
    y: 0,
    starting_context: '',
    container_url: null,
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

describe('describeNode', () => {
  it('names the parent, the children and the peers of a node, not the node itself', () => {
    const agents = [node('root', null), node('a', 'root'), node('b', 'root'), node('c', 'a')];
    const described = describeNode({ id: 's', name: 'S', agents }, 'a');
    expect(described.parent).toEqual({ role_id: 'team-root', label: 'Node root' });
    expect(described.children).toEqual([{ role_id: 'team-c', label: 'Node c' }]);
    expect(described.children_total).toBe(1);
    expect(described.peers).toEqual([{ role_id: 'team-b', label: 'Node b' }]);
    expect(described.peers_total).toBe(1);
  });

  it('a root has no peers, even beside other roots', () => {
    const described = describeNode({ id: 's', name: 'S', agents: [node('root', null), node('other', null)] }, 'root');
    expect(described.parent).toBeNull();
    expect(described.peers).toEqual([]);
    expect(described.peers_total).toBe(0);
  });

  it('lists at most ENRICH_NEIGHBOURS children and peers and counts all of them', () => {
    const agents = [node('root', null), node('me', 'root')];
    for (let i = 0; i < 3000; i++) agents.push(node(`peer${i}`, 'root'), node(`child${i}`, 'me'));
    const described = describeNode({ id: 's', name: 'S', agents }, 'me');
    expect(described.children).toHaveLength(ENRICH_NEIGHBOURS);
    expect(described.children_total).toBe(3000);
    expect(described.peers).toHaveLength(ENRICH_NEIGHBOURS);
    expect(described.peers_total).toBe(3000);
    expect(described.peers[0]).toEqual({ role_id: 'team-peer0', label: 'Node peer0' });
    expect(described.peers.some((peer) => peer.role_id === 'team-me')).toBe(false);
  });

  it('an unknown node is a programming error', () => {
    expect(() => describeNode({ id: 's', name: 'S', agents: [] }, 'ghost')).toThrow(/ghost/);
  });
});
