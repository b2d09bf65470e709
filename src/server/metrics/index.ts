/**
 * Prometheus metrics (`--metrics`, `--metrics-port`): the collectors, fed by the app's
 * run and search observers and by an HTTP hook, served as text at `GET /metrics` on the
 * API port or on a port of their own. Nothing here runs unless metrics are turned on.
 */
import type { FastifyInstance } from 'fastify';
import type { App } from '../../app.js';
import type { Run } from '../../core/chat/index.js';
import { createCollectors, type OrgCollectors } from './collectors.js';

export { startMetricsListener, type MetricsListener } from './listener.js';

/** The metrics of one server. */
export interface OrgMetrics {
  /** The Prometheus text of every metric (content type {@link OrgMetrics.contentType}). */
  render(): Promise<string>;
  contentType: string;
  /** Stops observing the app. */
  close(): void;
}

/** What the metrics read beyond the app. */
export interface MetricsSources {
  openStreams(): number;
  mcpSessions?(): number;
}

/** The services the metrics observe. */
export type MetricsApp = Pick<App, 'chat' | 'skillCount' | 'observeSearches'>;

const seconds = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e9;

/** Creates the metrics of `server` over `app`, and starts observing both. */
export function createMetrics(server: FastifyInstance, app: MetricsApp, sources: MetricsSources): OrgMetrics {
  const queued = new Map<string, number>();
  const collectors = createCollectors({
    openStreams: sources.openStreams,
    ...(sources.mcpSessions ? { mcpSessions: sources.mcpSessions } : {}),
    skills: () => app.skillCount(),
    queued: () => queued,
  });
  observeHttp(server, collectors);
  const stopRuns = observeRuns(app, collectors, queued);
  const stopSearches = app.observeSearches(({ durationMs, matches }) => {
    collectors.searchDuration.observe(durationMs / 1000);
    if (matches === 0) collectors.searchNoMatch.inc();
  });
  return {
    render: () => collectors.registry.metrics(),
    contentType: collectors.registry.contentType,
    close() {
      stopRuns();
      stopSearches();
    },
  };
}

/** Times every request to its last byte (or its abort), streams included, by route pattern. */
function observeHttp(server: FastifyInstance, collectors: OrgCollectors): void {
  server.addHook('onRequest', async (request, reply) => {
    const start = process.hrtime.bigint();
    // 'close' comes after the last byte and also for an aborted request: one observation either way.
    reply.raw.once('close', () => {
      collectors.httpDuration.observe(
        { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.raw.statusCode) },
        seconds(start),
      );
    });
  });
}

/** Follows every run: queue depth per structure, active runs, outcomes, durations, time to first event. */
function observeRuns(app: Pick<App, 'chat'>, collectors: OrgCollectors, queued: Map<string, number>): () => void {
  const waiting = new Set<string>();
  const accepted = new Map<string, bigint>();
  const started = new Map<string, bigint>();
  const dequeue = (run: Run) => {
    if (!waiting.delete(run.id)) return;
    const depth = (queued.get(run.structureId) ?? 1) - 1;
    if (depth > 0) queued.set(run.structureId, depth);
    else queued.delete(run.structureId);
  };
  return app.chat.observe({
    queued(run) {
      waiting.add(run.id);
      accepted.set(run.id, process.hrtime.bigint());
      queued.set(run.structureId, (queued.get(run.structureId) ?? 0) + 1);
    },
    started(run, runtime) {
      dequeue(run);
      started.set(run.id, process.hrtime.bigint());
      collectors.runsActive.inc({ runtime });
      const stop = run.follow(run.lastSeq, () => {
        stop();
        const from = accepted.get(run.id);
        if (from !== undefined) collectors.firstEvent.observe({ runtime }, seconds(from));
      });
    },
    finished(run, outcome, runtime) {
      dequeue(run);
      accepted.delete(run.id);
      const from = started.get(run.id);
      started.delete(run.id);
      collectors.runsFinished.inc({ outcome, runtime: runtime ?? 'none' });
      if (runtime === undefined || from === undefined) return;
      collectors.runsActive.dec({ runtime });
      collectors.runDuration.observe({ outcome, runtime }, seconds(from));
    },
    delegated(_parent, outcome) {
      collectors.delegations.inc({ outcome });
    },
  });
}
