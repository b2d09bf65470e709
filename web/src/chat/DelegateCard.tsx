/**
 * A delegation in the delegating node's chat (API.md §10): the node the task went to, the
 * task, its live status while it runs (working on it, or waiting for that node's current
 * turn, from the structure's live node states), what came back, and a link that opens
 * that node's chat at the delegated turn, following it live. Props in, no fetching.
 */
import type { OrgNode } from '../api/types';
import { href } from '../router';
import type { DelegateBlock } from './delegation';

/** Props of {@link DelegateCard}. */
export interface DelegateCardProps {
  block: DelegateBlock;
  structureId: string;
  /** The delegating turn is still running (an open delegation is then live). */
  running: boolean;
  /** The node the task went to, with its live state (absent when unknown). */
  target?: OrgNode | undefined;
  /** The delegating node's role id (the target works "for" it while it runs the task). */
  from?: string | undefined;
}

/** What a delegation is doing or came to, as a short status and its tone. */
export function delegationStatus(block: DelegateBlock, running: boolean, target: OrgNode | undefined, from: string | undefined): { text: string; tone: 'running' | 'done' | 'failed' | 'refused' | 'stopped' } {
  const outcome = block.outcome;
  if (outcome) {
    if (outcome.refused || block.runId === null) return { text: 'Refused', tone: 'refused' };
    if (outcome.status === 'complete') return { text: 'Done', tone: 'done' };
    return outcome.summary === 'cancelled' ? { text: 'Stopped', tone: 'stopped' } : { text: 'Failed', tone: 'failed' };
  }
  if (block.stopped) return { text: 'Stopped', tone: 'stopped' };
  if (!running) return { text: 'No answer: the turn ended first', tone: 'stopped' };
  const name = target?.label ?? block.roleId;
  if (target?.state === 'working' && target.working_for === from) return { text: 'Working on it…', tone: 'running' };
  if (target?.state === 'working') return { text: `Waiting for ${name} to finish its current turn…`, tone: 'running' };
  return { text: 'Starting…', tone: 'running' };
}

/** One delegation. */
export function DelegateCard({ block, structureId, running, target, from }: DelegateCardProps) {
  const status = delegationStatus(block, running, target, from);
  const name = target ? `${target.label} (${block.roleId})` : block.roleId;
  return (
    <div className={`ev ev-delegate ev-delegate-${status.tone}`} role="group" aria-label={`Delegated to ${name}`} data-run-id={block.runId ?? ''}>
      <div className="ev-delegate-head">
        <span className="ev-tag ev-tag-delegate">Delegated</span> <span aria-hidden="true">→</span> <strong className="ev-delegate-target">{name}</strong>{' '}
        <span className={`ev-delegate-status status-${status.tone}`} role="status">
          {status.tone === 'running' ? <span className="ev-delegate-dot" aria-hidden="true" /> : null}
          {status.text}
        </span>
      </div>
      {block.message ? (
        <details className="ev-delegate-task">
          <summary>Task</summary>
          <p className="ev-delegate-message">{block.message}</p>
        </details>
      ) : null}
      {block.outcome ? <p className="ev-delegate-summary">{block.outcome.summary}</p> : null}
      {block.outcome?.artifacts.length ? <p className="ev-delegate-files muted small">Files on {target?.label ?? block.roleId}’s shelf: {block.outcome.artifacts.join(', ')}</p> : null}
      {block.runId ? (
        <a className="ev-delegate-link" href={href.run(structureId, block.roleId, block.runId)}>
          {block.done ? `Open ${target?.label ?? block.roleId}’s turn` : `Follow ${target?.label ?? block.roleId}’s turn live`}
        </a>
      ) : null}
    </div>
  );
}
