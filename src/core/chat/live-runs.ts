/**
 * The runs one engine knows: those of this process while they are queued or running,
 * finished ones kept for a while (`RecentRuns`), and, on a shared store, runs executing
 * on another instance that streams of this one follow (one follower per run, however
 * many streams).
 */
import type { RunAppender } from './appender.js';
import type { OpenRunLink, RunLineage } from './delegation/types.js';
import { RecentRuns } from './recent-runs.js';
import { followRemoteRun } from './remote-run.js';
import type { Run } from './run.js';
import type { ChatStore, RunLocation } from './store.js';
import type { TurnEvents } from './turn.js';

/** A run of this process while it is queued or running. */
export interface LiveRun {
  run: Run;
  appender: RunAppender;
  /** Set once the turn runs (its event handling, with learning). */
  turn?: TurnEvents;
  /** Name of the runtime running the turn, once it started. */
  runtime?: string;
  /** The run's place among delegations (a root run: itself alone). */
  lineage: RunLineage;
  /** How many delegations the turn has started. */
  delegations: number;
  /** Runs the turn delegated that have not ended (ids). */
  children: Set<string>;
  /** Every run the turn delegated (ids). */
  delegated: Set<string>;
  /** Who cancelled the run, for the runs it delegated (they stop too). */
  cancelledBy?: string;
  /** The cancel of the open runs it delegated, once started. */
  cascade?: Promise<void>;
}

/** Live, recent and remotely followed runs of one engine. */
export class LiveRuns {
  private readonly live = new Map<string, LiveRun>();
  private readonly remote = new Map<string, Promise<Run>>();
  private readonly recent: RecentRuns;

  /** `recentBytes`: bytes of finished runs' events kept in memory for replay. */
  constructor(
    private readonly store: ChatStore,
    recentBytes: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.recent = new RecentRuns(recentBytes);
  }

  /** Registers a run of this process as it is queued. */
  add(entry: LiveRun): void {
    this.live.set(entry.run.id, entry);
  }

  /** Forgets a run that never started (its record failed). */
  drop(entry: LiveRun): void {
    if (this.live.get(entry.run.id) === entry) this.live.delete(entry.run.id);
  }

  /** A run of this process that has finished: it is kept among the recent ones. */
  retire(entry: LiveRun): void {
    this.live.delete(entry.run.id);
    this.recent.add(entry.run);
  }

  /** The entry of a run of this process that has not finished. */
  entry(runId: string): LiveRun | undefined {
    return this.live.get(runId);
  }

  /** True while the run executes (or waits for its turn) on this instance. */
  has(runId: string): boolean {
    return this.live.has(runId);
  }

  /** A run of this process that has not finished (or finished recently), if known. */
  get(runId: string): Run | undefined {
    return this.live.get(runId)?.run ?? this.recent.get(runId);
  }

  /** A finished run kept in memory. */
  recentRun(runId: string): Run | undefined {
    return this.recent.get(runId);
  }

  /** Runs of this process that have not finished. */
  active(): Run[] {
    return [...this.live.values()].map((entry) => entry.run);
  }

  /** The open runs of a structure with their parents, each node's in queue order (arrival order). */
  openLinks(structureId: string): OpenRunLink[] {
    const links: OpenRunLink[] = [];
    for (const { run, appender, lineage } of this.live.values()) {
      if (run.structureId !== structureId || appender.sealed) continue;
      links.push({ runId: run.id, nodeId: run.nodeId, roleId: run.roleId, parentRunId: lineage.chain.at(-2)?.runId ?? null });
    }
    return links;
  }

  /**
   * On a shared store, a run still going on another instance, followed live; undefined
   * when it has ended or the store is not shared.
   */
  async followRemote(where: RunLocation): Promise<Run | undefined> {
    const cluster = this.store.cluster;
    if (!cluster) return undefined;
    let following = this.remote.get(where.runId);
    if (!following) {
      following = followRemoteRun(this.store, cluster, where, this.onError);
      this.remote.set(where.runId, following);
      following.then(
        (run) =>
          run.done.then(() => {
            this.remote.delete(where.runId);
            this.recent.add(run);
          }),
        () => this.remote.delete(where.runId),
      );
    }
    return following;
  }
}
