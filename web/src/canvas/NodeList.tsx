/**
 * The nodes as an indented list in tree order: the canvas's stand-in on phones and the
 * side panel's index on wider screens. Each entry links to the node's chat.
 */
import type { OrgNode } from '../api/types';
import { href } from '../router';

/** Nodes in depth-first tree order with their depth (roots first; orphans last). */
export function treeOrder(nodes: readonly OrgNode[]): { node: OrgNode; depth: number }[] {
  const children = new Map<string | null, OrgNode[]>();
  const ids = new Set(nodes.map((node) => node.id));
  for (const node of nodes) {
    const parent = node.parent_id && ids.has(node.parent_id) ? node.parent_id : null;
    children.set(parent, [...(children.get(parent) ?? []), node]);
  }
  const out: { node: OrgNode; depth: number }[] = [];
  const visit = (parent: string | null, depth: number) => {
    for (const node of children.get(parent) ?? []) {
      out.push({ node, depth });
      visit(node.id, depth + 1);
    }
  };
  visit(null, 0);
  return out;
}

export function NodeList({ structureId, nodes, selected }: { structureId: string; nodes: readonly OrgNode[]; selected?: string | undefined }) {
  return (
    <ul className="node-list" aria-label="Nodes">
      {treeOrder(nodes).map(({ node, depth }) => (
        <li key={node.id} className={`node-list-depth-${Math.min(depth, 6)}`}>
          <a href={href.canvas(structureId, node.role_id)} className="node-list-item" aria-current={node.role_id === selected ? 'page' : undefined} data-list-role-id={node.role_id}>
            <span className="node-list-label">{node.label}</span>
            <code className="muted node-list-role">{node.role_id}</code>
            <span className={`state-pill state-${node.state}`}>{node.state}</span>
          </a>
        </li>
      ))}
    </ul>
  );
}
