/**
 * On a delegated turn's message (API.md §10): who handed the task over, with a link to
 * the delegating node's chat at the turn that delegated it. Props in, no fetching.
 */
import type { HistoryMessage, OrgNode } from '../api/types';
import { href } from '../router';

/** Props of {@link DelegatedBy}. */
export interface DelegatedByProps {
  by: NonNullable<HistoryMessage['delegated_by']>;
  structureId: string;
  /** The structure's nodes, to name the delegating one by its label. */
  nodes?: readonly OrgNode[] | undefined;
}

/** "Delegated by <label> (<role_id>)", linked to the delegating turn. */
export function DelegatedBy({ by, structureId, nodes }: DelegatedByProps) {
  const label = nodes?.find((node) => node.role_id === by.role_id)?.label;
  const name = label ? `${label} (${by.role_id})` : by.role_id;
  return (
    <p className="msg-delegated-by">
      Delegated by{' '}
      <a href={href.run(structureId, by.role_id, by.run_id)} title={`Open the turn of ${name} that handed this task over`}>
        {name}
      </a>
      {by.root_run_id !== by.run_id ? <span className="muted"> · part of a larger request</span> : null}
    </p>
  );
}
