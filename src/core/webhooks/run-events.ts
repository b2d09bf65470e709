/**
 * The webhook events of chat runs: `run.completed` and `run.failed` when a run ends,
 * with `parent_run_id` and `root_run_id` when the run was delegated, `draft.created`
 * when a turn's learned skill is stored as a draft, and
 * `node.state_changed` when a node turns working or idle. A run observer of the engine.
 */
import { decodeEvent, type Run, type RunObserver } from '../chat/index.js';
import type { WebhookEvent } from './service.js';

/** Observes runs and hands their webhook events to `emit`. */
export function webhookRunObserver(emit: (event: WebhookEvent) => void): RunObserver {
  return {
    queued(run) {
      // Only batches holding a learning outcome are decoded.
      const stop = run.subscribe(
        0,
        (encoded) => {
          const event = decodeEvent(encoded);
          if (event.type !== 'skill_learned') return;
          const content = event.content as { slug: string; name: string; stored?: boolean };
          if (content.stored !== true) return;
          stop();
          emit({ type: 'draft.created', structureId: run.structureId, data: { ...runIds(run), slug: content.slug, name: content.name } });
        },
        ['skill_learned'],
      );
      run.done.then(stop, stop);
    },
    finished(run, outcome) {
      const last = run.lastEvent;
      const terminal = last ? decodeEvent(last) : undefined;
      if (terminal?.type === 'complete') {
        emit({ type: 'run.completed', structureId: run.structureId, data: { ...runIds(run), ...delegationIds(run), summary: terminal.content.summary, artifacts: terminal.content.artifacts } });
        return;
      }
      const message = terminal?.type === 'error' ? terminal.content.message : 'the run ended without a terminal event';
      emit({ type: 'run.failed', structureId: run.structureId, data: { ...runIds(run), ...delegationIds(run), message, cancelled: outcome === 'cancelled' } });
    },
    nodeState(where, state) {
      emit({ type: 'node.state_changed', structureId: where.structureId, data: { role_id: where.roleId, node_id: where.nodeId, state } });
    },
  };
}

function runIds(run: Run) {
  return { run_id: run.id, role_id: run.roleId, node_id: run.nodeId };
}

/** For a delegated run (API.md §10): the run that delegated it and the root run of its chain; nothing otherwise. */
function delegationIds(run: Run): { parent_run_id?: string; root_run_id?: string } {
  return run.delegatedBy ? { parent_run_id: run.delegatedBy.run_id, root_run_id: run.delegatedBy.root_run_id } : {};
}
