/**
 * The start of a run, once a message is accepted: the run takes its place at once, in
 * arrival order — among the open runs of this process (which the delegation rules read as
 * the node queues) and in its node's queue of turns — and is then recorded durably: the
 * attachments staged, the node's recent history read, the user message and the agent
 * message's start written. Its turn runs when it is the node's turn and the record is
 * durable. A record that fails gives the place back; nothing of the run stays behind.
 */
import { join } from 'node:path';
import type { Turn } from '../runtimes/types.js';
import type { DelegatedBy } from '../schemas/delegation.js';
import type { KeyedMutex } from '../storage/index.js';
import type { NodeRecord } from '../structures/types.js';
import { isoNow, type Clock, type IdGenerator } from '../util/index.js';
import { RunAppender } from './appender.js';
import type { DecodedAttachment } from './artifacts.js';
import { rootLineage, type RunLineage } from './delegation/index.js';
import { endRecordOf } from './end-record.js';
import type { LiveRun, LiveRuns } from './live-runs.js';
import type { RunObservers, TraceCarrier } from './observer.js';
import { Run } from './run.js';
import type { NodeShelves } from './shelves.js';
import type { ChatStore, RunLocation } from './store.js';
import { logEntriesOf, runTurn, type QueuedTurn, type TurnRunnerDeps } from './turn-runner.js';
import type { MessageAuthor } from './types.js';
import { waitingThought, type NodeLines } from './waiting.js';

/** How many recent messages a runtime receives. */
const TURN_HISTORY = 20;

/** What a run's start reads and writes. */
export interface RunStartDeps {
  store: ChatStore;
  shelves: NodeShelves;
  runs: LiveRuns;
  lines: NodeLines;
  queue: KeyedMutex;
  observers: RunObservers;
  turns: TurnRunnerDeps;
  clock: Clock;
  ids: IdGenerator;
  /** Called once the run has ended (its terminal event is durable and published). */
  ended(entry: LiveRun): void;
  onError(error: unknown): void;
}

/** The message a run starts with. */
export interface RunInput {
  structureId: string;
  message: string;
  attachments?: DecodedAttachment[];
  origin?: string;
  author?: MessageAuthor;
  traceContext?: TraceCarrier;
}

/**
 * Starts a run of `node` for `input` (delegated when `delegatedFrom` is the lineage of the
 * run that delegated it). The run is registered and queued before this returns its
 * promise (synchronously), which resolves once the run is recorded.
 */
export function startRun(deps: RunStartDeps, input: RunInput, node: NodeRecord, delegatedFrom?: RunLineage): Promise<Run> {
  const where: RunLocation = { runId: deps.ids(), structureId: input.structureId, nodeId: node.id, roleId: node.role_id };
  const link = { runId: where.runId, nodeId: node.id, roleId: node.role_id };
  const lineage: RunLineage = delegatedFrom
    ? { ...delegatedFrom, chain: [...delegatedFrom.chain, link] }
    : rootLineage(link, input.message, input.author?.kind === 'user' ? input.author.id : undefined);
  const parent = delegatedFrom?.chain.at(-1);
  const delegatedBy: DelegatedBy | undefined = parent && { role_id: parent.roleId, run_id: parent.runId, root_run_id: lineage.chain[0]!.runId };
  const run = new Run(where, delegatedBy);
  const appender = new RunAppender(run, deps.store.eventWriter(where), () => isoNow(deps.clock), {
    logged: (events) => {
      const entries = logEntriesOf(run, events);
      return entries ? deps.turns.directory.appendLog(run.structureId, entries) : undefined;
    },
    end: (terminal, text, truncated) => deps.store.endRun(where, endRecordOf(where.runId, terminal, text, truncated)),
    onError: deps.onError,
  });
  const entry: LiveRun = { run, appender, lineage, delegations: 0, children: new Set(), delegated: new Set() };
  // Visible at once, in arrival order: the delegation rules see the run queued on its node.
  deps.runs.add(entry);
  let open!: (turn: QueuedTurn | undefined) => void;
  const recorded = new Promise<QueuedTurn | undefined>((resolve) => (open = resolve));
  deps.queue
    .run(node.id, async () => {
      const queued = await recorded;
      if (queued) await deps.observers.within(run, () => runTurn(deps.turns, entry, queued));
    })
    .catch(deps.onError);
  return record(deps, input, entry, delegatedBy).then(
    async (queued) => {
      deps.observers.notify('queued', run, input.traceContext);
      run.done.then(() => deps.ended(entry)).catch(deps.onError);
      // A message to a busy node says at once what it waits for (its stream would be silent otherwise).
      const ahead = deps.lines.join(node.id, run);
      if (ahead.length > 0) await appender.append({ type: 'thought', content: waitingThought(ahead) });
      open(queued);
      return run;
    },
    (error: unknown) => {
      deps.runs.drop(entry);
      open(undefined);
      throw error;
    },
  );
}

/** Stages the attachments, reads the recent history and writes the run's start; resolves with the turn to queue. */
async function record(deps: RunStartDeps, input: RunInput, entry: LiveRun, delegatedBy: DelegatedBy | undefined): Promise<QueuedTurn> {
  const { where } = entry.run;
  const shelf = deps.shelves.of(where.structureId, where.nodeId);
  // All of a message's attachments fit in the structure's quota, or none is written.
  if (input.attachments?.length) await deps.shelves.checkFits(where.structureId, where.nodeId, input.attachments.map((file) => ({ name: file.name, size: file.data.length })));
  const staged: Turn['attachments'] = [];
  for (const attachment of input.attachments ?? []) {
    const info = await shelf.write(attachment.name, attachment.data, attachment.content_type, { runId: where.runId, source: 'attachment' });
    staged.push({ name: info.name, content_type: info.content_type, size: info.size, path: join(shelf.dir, info.name) });
  }
  const now = isoNow(deps.clock);
  const history = await deps.store.messages(where, { limit: TURN_HISTORY });
  await deps.store.startRun(
    where,
    {
      id: deps.ids(),
      run_id: where.runId,
      text: input.message,
      attachments: staged.map(({ name, content_type, size }) => ({ name, content_type, size })),
      created_at: now,
      ...(input.origin ? { origin: input.origin } : {}),
      ...(delegatedBy ? { delegated_by: delegatedBy } : {}),
      ...(input.author ? { author: input.author } : {}),
    },
    { id: deps.ids(), run_id: where.runId, created_at: now },
    entry.lineage.startedBy ? { startedBy: entry.lineage.startedBy } : {},
  );
  return { message: input.message, attachments: staged, history };
}
