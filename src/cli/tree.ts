/** Drawing a structure's nodes as a tree of lines, children left to right as on the canvas. */
import type { Node } from '../client/types.js';

/** How a node is labelled in the tree. */
export type NodeLabel = (node: Node) => string;

const defaultLabel: NodeLabel = (node) => `${node.label}  ${node.role_id}  ${node.state === 'working' ? '● working' : '○ idle'}`;

/**
 * Lines of the tree of `nodes` (a forest when several have no parent in the set).
 *
 * @example
 * drawTree(nodes)
 * // ['CEO  exec-ceo  ○ idle', '├── CFO  exec-cfo  ● working', '└── CTO  exec-cto  ○ idle']
 */
export function drawTree(nodes: readonly Node[], label: NodeLabel = defaultLabel): string[] {
  const ids = new Set(nodes.map((node) => node.id));
  const children = new Map<string | null, Node[]>();
  for (const node of nodes) {
    const parent = node.parent_id && ids.has(node.parent_id) ? node.parent_id : null;
    children.set(parent, [...(children.get(parent) ?? []), node]);
  }
  for (const list of children.values()) list.sort((a, b) => a.x - b.x || a.y - b.y || a.label.localeCompare(b.label));
  const lines: string[] = [];
  const walk = (node: Node, prefix: string, connector: string, childPrefix: string, seen: Set<string>) => {
    lines.push(`${prefix}${connector}${label(node)}`);
    if (seen.has(node.id)) return; // a cycle would be a server bug; never loop on it
    seen.add(node.id);
    const kids = children.get(node.id) ?? [];
    kids.forEach((kid, i) => {
      const last = i === kids.length - 1;
      walk(kid, prefix + childPrefix, last ? '└── ' : '├── ', last ? '    ' : '│   ', seen);
    });
  };
  for (const root of children.get(null) ?? []) walk(root, '', '', '', new Set());
  return lines;
}
