/**
 * One node on the canvas: label, role id, live state (and, while it works on a
 * delegated task, for whom) and a mark for container-backed nodes. Edges attach at the top (or the left side, in a stacked column) and leave at
 * the bottom; the handles are for drawing only, nodes are never connected by hand.
 */
import { Handle, Position, type NodeProps } from '@xyflow/react';
import type { CardNode } from './flow';

/** The canvas node component. */
export function NodeCard({ data }: NodeProps<CardNode>) {
  const { node, selected, hidden } = data;
  return (
    <div className={`card-node card-${node.state}${selected ? ' card-selected' : ''}`}>
      <Handle type="target" position={Position.Top} id="top" isConnectable={false} />
      <Handle type="target" position={Position.Left} id="left" isConnectable={false} />
      {/* The spaces keep the words apart in the accessible name, which comes from this text. */}
      <span className="card-label">{node.label}</span>{' '}
      <span className="card-meta">
        <code className="card-role">{node.role_id}</code>{' '}
        {node.container_url ? <span className="card-container">container </span> : null}
        <span className={`state-pill state-${node.state}`} data-state={node.state} {...(node.working_for ? { title: `working on a task ${node.working_for} delegated` } : {})}>
          {node.state}
        </span>
        {/* The marked edge shows whom it works for; words for screen readers. */}
        {node.working_for ? (
          <span className="sr-only" data-working-for={node.working_for}>
            {` for ${node.working_for}`}
          </span>
        ) : null}
        {hidden > 0 ? <span className="card-hidden"> +{hidden} hidden</span> : null}
      </span>
      <Handle type="source" position={Position.Bottom} id="bottom" isConnectable={false} />
    </div>
  );
}
