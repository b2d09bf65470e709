/** Canvas geometry: node boxes centred on their x/y, the view box that fits them, edges. Pure. */
import type { OrgNode } from '../api/types';

/** Width of a node box in canvas units. */
export const NODE_W = 232;
/** Height of a node box in canvas units. */
export const NODE_H = 64;
const PAD = 40;
const MIN_W = 900;
const MIN_H = 480;

/** A view box `{x, y, width, height}`. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The view box fitting every node (at least MIN_W × MIN_H, centred). */
export function fitView(nodes: readonly { x: number; y: number }[]): Box {
  if (nodes.length === 0) return { x: -MIN_W / 2, y: -MIN_H / 2, width: MIN_W, height: MIN_H };
  const xs = nodes.map((node) => node.x);
  const ys = nodes.map((node) => node.y);
  const left = Math.min(...xs) - NODE_W / 2 - PAD;
  const right = Math.max(...xs) + NODE_W / 2 + PAD;
  const top = Math.min(...ys) - NODE_H / 2 - PAD;
  const bottom = Math.max(...ys) + NODE_H / 2 + PAD;
  const width = Math.max(right - left, MIN_W);
  const height = Math.max(bottom - top, MIN_H);
  return { x: (left + right) / 2 - width / 2, y: (top + bottom) / 2 - height / 2, width, height };
}

/** The SVG path of the edge from a parent box's bottom to a child box's top. */
export function edgePath(parent: { x: number; y: number }, child: { x: number; y: number }): string {
  const x1 = parent.x;
  const y1 = parent.y + NODE_H / 2;
  const x2 = child.x;
  const y2 = child.y - NODE_H / 2;
  const mid = (y1 + y2) / 2;
  return `M ${x1} ${y1} C ${x1} ${mid}, ${x2} ${mid}, ${x2} ${y2}`;
}

/** The view box shown: `fitted` zoomed around its centre (zoom > 1 enlarges) and panned. */
export function zoomed(fitted: Box, zoom: number, pan: { x: number; y: number }): Box {
  const width = fitted.width / zoom;
  const height = fitted.height / zoom;
  return { x: fitted.x + (fitted.width - width) / 2 + pan.x, y: fitted.y + (fitted.height - height) / 2 + pan.y, width, height };
}

/** A label shortened to fit a node box. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A free spot for a new child of `parent` (below it, right of its existing children). */
export function childSpot(nodes: readonly OrgNode[], parent: OrgNode | undefined): { x: number; y: number } {
  if (!parent) return { x: 0, y: 0 };
  const siblings = nodes.filter((node) => node.parent_id === parent.id);
  if (siblings.length === 0) return { x: Math.round(parent.x), y: Math.round(parent.y + 180) };
  const right = Math.max(...siblings.map((node) => node.x));
  const row = siblings[0]!.y;
  return { x: Math.round(right + NODE_W + 60), y: Math.round(row) };
}
