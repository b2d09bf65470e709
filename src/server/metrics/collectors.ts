/**
 * The Prometheus metrics of one instance, by `prom-client`, in a registry of their own:
 * HTTP request durations by route and status, open chat streams, runs (queued per
 * structure, active, finished by outcome and runtime, duration, time to first event),
 * delegations between nodes (started, or refused by reason),
 * skill searches (latency, no-match count), MCP sessions, skills, and the process
 * metrics prom-client collects (CPU, memory, event loop lag, handles, GC).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Where the gauges read their current values (asked at each scrape). */
export interface MetricSources {
  /** Open chat SSE streams. */
  openStreams(): number;
  /** Open MCP sessions (absent: no MCP endpoint). */
  mcpSessions?(): number;
  /** Live skills in the library. */
  skills(): number;
  /** Runs waiting for their node, per structure id. */
  queued(): ReadonlyMap<string, number>;
}

/** The metrics, for the recorders to update. */
export interface OrgCollectors {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  runsActive: Gauge<'runtime'>;
  runsFinished: Counter<'outcome' | 'runtime'>;
  runDuration: Histogram<'outcome' | 'runtime'>;
  firstEvent: Histogram<'runtime'>;
  searchDuration: Histogram;
  searchNoMatch: Counter;
  delegations: Counter<'outcome'>;
}

/** Creates the registry and every metric in it. */
export function createCollectors(sources: MetricSources): OrgCollectors {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const httpDuration = new Histogram({
    name: 'org_http_request_duration_seconds',
    help: 'HTTP request duration (to the last byte; chat streams until they end), by route pattern and status',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers,
  });
  new Gauge({
    name: 'org_sse_connections',
    help: 'Open chat event streams (POST /chat/message and run resumes)',
    registers,
    collect() {
      this.set(sources.openStreams());
    },
  });
  const runsActive = new Gauge({ name: 'org_runs_active', help: 'Runs whose turn is running, by runtime', labelNames: ['runtime'] as const, registers });
  const runsFinished = new Counter({
    name: 'org_runs_finished_total',
    help: 'Runs finished, by outcome (complete, error, cancelled) and runtime (none: cancelled before it started)',
    labelNames: ['outcome', 'runtime'] as const,
    registers,
  });
  const runDuration = new Histogram({
    name: 'org_run_duration_seconds',
    help: 'Run duration from its turn starting to its terminal event, by outcome and runtime',
    labelNames: ['outcome', 'runtime'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
    registers,
  });
  const firstEvent = new Histogram({
    name: 'org_run_time_to_first_event_seconds',
    help: 'Time from a message being accepted to its run’s first event (queue wait included), by runtime',
    labelNames: ['runtime'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  new Gauge({
    name: 'org_run_queue_depth',
    help: 'Runs accepted and waiting for their node (one turn at a time per node), per structure',
    labelNames: ['structure_id'] as const,
    registers,
    collect() {
      this.reset();
      for (const [structureId, depth] of sources.queued()) this.set({ structure_id: structureId }, depth);
    },
  });
  const searchDuration = new Histogram({
    name: 'org_search_duration_seconds',
    help: 'Skill search latency (API searches and the lookup of every chat message)',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers,
  });
  const searchNoMatch = new Counter({ name: 'org_search_no_match_total', help: 'Skill searches that matched nothing', registers });
  const delegations = new Counter({
    name: 'org_delegations_total',
    help: 'Delegations of a running turn to another node, by outcome: started, or the rule that refused it (self, chain, depth, limit, cycle, unknown_role, authority, invalid, ended, failed)',
    labelNames: ['outcome'] as const,
    registers,
  });
  if (sources.mcpSessions) {
    const count = sources.mcpSessions;
    new Gauge({
      name: 'org_mcp_sessions',
      help: 'Open MCP Streamable HTTP sessions',
      registers,
      collect() {
        this.set(count());
      },
    });
  }
  new Gauge({
    name: 'org_skills',
    help: 'Live skills in the library',
    registers,
    collect() {
      this.set(sources.skills());
    },
  });
  return { registry, httpDuration, runsActive, runsFinished, runDuration, firstEvent, searchDuration, searchNoMatch, delegations };
}
