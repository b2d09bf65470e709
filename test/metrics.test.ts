/**
 * Prometheus metrics against a listening server: off by default; with metrics on,
 * `GET /metrics` shows request durations by route and status, open chat streams, runs
 * queued per structure, active, finished by outcome and runtime, time to first event,
 * search latency and no-match count, MCP sessions and process metrics; with
 * `--metrics-port` they move to a port of their own.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../src/cli/commands/serve.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { startChat, type ChatFixture } from './helpers/chat.js';
import { startInstance } from './helpers/instance.js';

/** The value of one sample of the exposition text (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return undefined;
}

describe('metrics', () => {
  let chat: ChatFixture;
  const gates: (() => void)[] = [];
  /** A runtime that says one thing and then waits for the test to let the turn end. */
  const held: AgentRuntime = {
    name: 'held',
    async run(_turn, emit) {
      await emit({ type: 'text', content: 'started' });
      await new Promise<void>((resolve) => gates.push(resolve));
      await emit({ type: 'complete', content: { summary: 'done', artifacts: [] } });
    },
  };

  beforeAll(async () => {
    chat = await startChat({ config: { metrics: true }, deps: { runtime: () => held } });
  });
  afterAll(async () => {
    for (const gate of gates.splice(0)) gate();
    await chat.close();
  });

  const scrape = async () => {
    const response = await fetch(chat.url('/metrics'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it('counts open streams, queued and active runs while turns are held, then outcomes and first-event times', async () => {
    const first = await chat.send('first');
    await first.until((response) => response.frames().some((frame) => frame.event?.type === 'text'));
    const second = await chat.send('second'); // waits for the node: one turn at a time
    let text = await scrape();
    expect(sample(text, 'org_sse_connections')).toBe(2);
    expect(sample(text, 'org_runs_active', { runtime: 'held' })).toBe(1);
    expect(sample(text, 'org_run_queue_depth', { structure_id: chat.structure.id })).toBe(1);

    gates.shift()!();
    await first.ended;
    await second.until((response) => response.frames().some((frame) => frame.event?.type === 'text'));
    text = await scrape();
    expect(sample(text, 'org_run_queue_depth', { structure_id: chat.structure.id })).toBeUndefined();
    expect(sample(text, 'org_runs_finished_total', { outcome: 'complete', runtime: 'held' })).toBe(1);
    expect(sample(text, 'org_runs_active', { runtime: 'held' })).toBe(1);

    // Cancelling the held turn ends it as cancelled.
    const runId = String(second.headers['x-org-run-id']);
    const cancel = await chat.t.server.inject({ method: 'POST', url: `/api/org/chat/runs/${runId}/cancel`, headers: chat.t.auth(chat.owner.token) });
    expect(cancel.statusCode).toBe(202);
    await second.ended;
    gates.shift()?.();
    text = await scrape();
    expect(sample(text, 'org_runs_finished_total', { outcome: 'cancelled', runtime: 'held' })).toBe(1);
    expect(sample(text, 'org_runs_active', { runtime: 'held' })).toBe(0);
    expect(sample(text, 'org_sse_connections')).toBe(0);
    expect(sample(text, 'org_run_time_to_first_event_seconds_count', { runtime: 'held' })).toBe(2);
    expect(sample(text, 'org_run_duration_seconds_count', { outcome: 'complete', runtime: 'held' })).toBe(1);
  });

  it('times requests by route pattern and status, and measures searches and misses', async () => {
    const before = sample(await scrape(), 'org_search_no_match_total') ?? 0;
    const search = await fetch(chat.url('/api/org/knowledge/search'), {
      method: 'POST',
      headers: { authorization: `Bearer ${chat.owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ structure_id: chat.structure.id, query: 'nothing is about this', limit: 3 }),
    });
    expect(search.status).toBe(200);
    expect((await search.json()) as unknown).toEqual({ matches: [] });
    const missing = await fetch(chat.url(`/api/org/structures/${chat.structure.id}`));
    expect(missing.status).toBe(401);
    const text = await scrape();
    expect(sample(text, 'org_search_no_match_total')).toBe(before + 1);
    expect(sample(text, 'org_search_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'org_http_request_duration_seconds_count', { method: 'POST', route: '/api/org/knowledge/search', status_code: '200' })).toBe(1);
    expect(sample(text, 'org_http_request_duration_seconds_count', { method: 'GET', route: '/api/org/structures/:structure_id', status_code: '401' })).toBe(1);
    expect(sample(text, 'org_http_request_duration_seconds_count', { method: 'POST', route: '/api/org/chat/message', status_code: '200' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'org_mcp_sessions')).toBe(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeDefined();
    expect(sample(text, 'org_skills')).toBe(chat.t.app.skillCount());
  });
});

describe('metrics configuration', () => {
  it('serves no /metrics unless asked', async () => {
    const t = await startInstance({ listen: true });
    try {
      expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('serves /metrics on the --metrics-port only', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-metrics-'));
    const lines: string[] = [];
    const running = await runServe(
      { home, port: 0, host: '127.0.0.1', demo: false, metricsPort: 0 },
      { out: (line) => lines.push(line), err: () => undefined },
      { ORG_CONFIG_DIR: join(home, 'config'), ORG_LOG_LEVEL: 'silent' },
    );
    try {
      const line = lines.find((candidate) => candidate.startsWith('org: metrics at '));
      const metricsUrl = line?.slice('org: metrics at '.length);
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(metricsUrl).not.toBe(`${running.url}/metrics`);
      expect((await fetch(`${running.url}/metrics`)).status).toBe(404);
      await fetch(`${running.url}/api/org/health`);
      const scraped = await fetch(metricsUrl!);
      expect(scraped.status).toBe(200);
      const text = await scraped.text();
      expect(sample(text, 'org_http_request_duration_seconds_count', { method: 'GET', route: '/api/org/health', status_code: '200' })).toBe(1);
      expect((await fetch(metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await running.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
