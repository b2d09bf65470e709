/**
 * Delegation benchmark (API.md §10), on a real org instance over loopback HTTP:
 *
 * 1. `delegation.overhead.*`: what a delegation adds to a turn, local runtime. The same
 *    two-step playbook is followed by node A without delegating (the baseline, measured in
 *    the same run) and with its first step handed to node B (`Delegate to …`), each turn
 *    timed from sending `POST /api/org/chat/message/sync` to its answer, interleaved over
 *    BENCH_DELEGATION_TURNS rounds (default 200, after 20 warm-up rounds). Beside the two
 *    p50s: the p50 of B's own turn run directly with the message a delegation sends it,
 *    and `added_minus_child_p50_ms` = delegating − baseline − B's turn: what the delegation
 *    itself costs beyond the turn it starts (the rules, the child run's start, the two
 *    events in A's stream) — B's turn alone is timed over HTTP, which a delegation does not
 *    pay, so this can come out below zero.
 * 2. `delegation.chains.*`: BENCH_DELEGATION_CHAINS concurrent chains (default 100) of
 *    depth 3 (a root run and three hops below it, 4 runs a chain, each on a node of its
 *    own), started at once over streamed `POST /chat/message`: the wall time (and per
 *    run), the p50 and p95 of a chain, and the terminal events — every run of every chain
 *    must end with exactly one, seen in its stored events, and every root stream must end
 *    with `complete` (`lost_terminal_events` counts what is missing or doubled). The
 *    baseline of the same run, `delegation.chains_baseline.*`: as many plain turns
 *    (depth 0) started at once the same way.
 *
 * Run alone with `npx tsx bench/delegation.ts`, or through `npm run bench -- delegation`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { envNumber, readSse } from './support.js';
import { createApp, type App, type AppDeps } from '../src/app.js';
import { resolveConnectionLimits } from '../src/core/config-connections.js';
import { resolveConfig, type OrgConfig } from '../src/core/config.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { buildServer } from '../src/server/index.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
const round = (value: number, digits = 2) => Number(value.toFixed(digits));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

/** An org instance on a temp home, listening on loopback, with the rate limit and connection caps out of the way. */
async function instance(deps: AppDeps = {}): Promise<{ app: App; url: string; dispatcher: Agent; close(): Promise<void> }> {
  const home = await mkdtemp(join(tmpdir(), 'org-bench-delegation-'));
  const config: OrgConfig = {
    ...resolveConfig({ home, port: 0, demo: false }, { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') }),
    rateLimit: 1_000_000_000,
    watchSkills: false,
    connections: { ...resolveConnectionLimits({}, {}), maxConnections: 1_000_000, maxConnectionsPerAddress: 1_000_000 },
  };
  const app = await createApp(config, { log: () => undefined, ...deps });
  const server = await buildServer(app, { version: 'bench' });
  await server.listen({ host: '127.0.0.1', port: 0, backlog: 4096 });
  const address = server.server.address();
  if (!address || typeof address !== 'object') throw new Error('server has no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  app.setListeningUrl(url);
  const dispatcher = new Agent({ connections: 512 });
  return {
    app,
    url,
    dispatcher,
    async close() {
      await dispatcher.close();
      server.server.closeAllConnections();
      await server.close();
      await app.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** One sync turn; resolves with its duration in ms and its answer. */
async function syncTurn(url: string, dispatcher: Agent, body: object): Promise<{ ms: number; summary: string; events: { type: string; content: unknown }[] }> {
  const started = performance.now();
  const response = await request(`${url}/api/org/chat/message/sync`, { method: 'POST', headers, body: JSON.stringify(body), dispatcher });
  const text = await response.body.text();
  const ms = performance.now() - started;
  if (response.statusCode !== 200) throw new Error(`sync answered ${response.statusCode}: ${text}`);
  const answer = JSON.parse(text) as { summary: string; events: { type: string; content: unknown }[] };
  return { ms, summary: answer.summary, events: answer.events };
}

/** 1. The overhead of a delegation in a local-runtime turn. */
async function overhead(): Promise<Record<string, number>> {
  const rounds = envNumber('BENCH_DELEGATION_TURNS', 200);
  const org = await instance();
  try {
    const structure = await org.app.structures.create({ name: 'Bench', template: 'blank', ownerId: null });
    const lead = await org.app.nodes.add(structure.id, { role_id: 'bench-lead', label: 'Lead', parent_id: null }, 'bench');
    await org.app.nodes.add(structure.id, { role_id: 'bench-report', label: 'Report', parent_id: lead.id }, 'bench');
    const steps = (first: string) => `## [one] Step 1: Gather the figures\n${first}Collect the figures of the month.\n\n## [two] Step 2: Write it up\nDecision: send it on Friday.\n`;
    const skill = (slug: string, body: string) =>
      org.app.skills.upsert({ slug, frontmatter: { type: 'skill', name: slug, status: 'complete', summary: `${slug}.` }, body, actor: 'bench' });
    await skill('bench-plain', steps(''));
    await skill('bench-delegating', steps('Delegate to bench-report.\n'));
    // What the delegation sends B, so that B's own turn can be timed alone (the same search, the same playbook).
    const childMessage = 'Gather the figures: Collect the figures of the month.\n\nRequest: /bench-delegating';
    const turn = (roleId: string, message: string) => syncTurn(org.url, org.dispatcher, { structure_id: structure.id, role_id: roleId, message });
    const plain: number[] = [];
    const delegating: number[] = [];
    const child: number[] = [];
    for (let index = 0; index < rounds + 20; index++) {
      const a = await turn('bench-lead', '/bench-plain');
      const b = await turn('bench-lead', '/bench-delegating');
      const c = await turn('bench-report', childMessage);
      if (!b.events.some((event) => event.type === 'tool_result' && (event.content as { tool: string; result: { status: string } }).result?.status === 'complete')) {
        throw new Error(`the delegating turn did not get its delegation back: ${b.summary}`);
      }
      if (index < 20) continue;
      plain.push(a.ms);
      delegating.push(b.ms);
      child.push(c.ms);
    }
    const base = p50(plain);
    const with_ = p50(delegating);
    const alone = p50(child);
    return {
      'delegation.overhead.turns': rounds,
      'delegation.overhead.baseline_p50_ms': round(base),
      'delegation.overhead.delegating_p50_ms': round(with_),
      'delegation.overhead.added_p50_ms': round(with_ - base),
      'delegation.overhead.ratio': round(with_ / base),
      'delegation.overhead.child_turn_p50_ms': round(alone),
      'delegation.overhead.added_minus_child_p50_ms': round(with_ - base - alone),
    };
  } finally {
    await org.close();
  }
}

/** Delegates a message `delegate <role>: <rest>` to that node, then completes; any other message completes at once. */
const chainRuntime: AgentRuntime = {
  name: 'chain',
  async run(turn, emit, tools) {
    const asked = /^delegate ([a-z0-9-]+): (.+)$/s.exec(turn.message);
    const result = asked ? await tools.delegate(asked[1]!, asked[2]!) : undefined;
    if (result && result.status !== 'complete') return emit({ type: 'error', content: { message: `the delegation failed: ${result.summary}` } });
    await emit({ type: 'complete', content: { summary: result ? `with ${result.role_id}` : 'done', artifacts: [] } });
  },
};

/** 2. Concurrent delegation chains of `depth` hops (0: as many plain turns, the baseline): no terminal event lost. */
async function chains(depth: number, prefix: string): Promise<Record<string, number>> {
  const count = envNumber('BENCH_DELEGATION_CHAINS', 100);
  const org = await instance({ runtime: () => chainRuntime });
  try {
    const structure = await org.app.structures.create({ name: 'Chains', template: 'blank', ownerId: null });
    const root = await org.app.nodes.add(structure.id, { role_id: 'bench-root', label: 'Root', parent_id: null }, 'bench');
    const role = (chain: number, level: number) => `c${chain}-l${level}`;
    for (let chain = 0; chain < count; chain++) {
      let parent = root.id;
      for (let level = 0; level <= depth; level++) parent = (await org.app.nodes.add(structure.id, { role_id: role(chain, level), label: role(chain, level), parent_id: parent }, 'bench')).id;
    }
    const messageOf = (chain: number) => {
      let message = 'done';
      for (let level = depth; level >= 1; level--) message = `delegate ${role(chain, level)}: ${message}`;
      return message;
    };
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: count }, async (_, chain) => {
        const begun = performance.now();
        const response = await request(`${org.url}/api/org/chat/message`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ structure_id: structure.id, role_id: role(chain, 0), message: messageOf(chain) }),
          dispatcher: org.dispatcher,
        });
        if (response.statusCode !== 200) throw new Error(`chain ${chain}: chat answered ${response.statusCode}: ${await response.body.text()}`);
        const runId = String(response.headers['x-org-run-id']);
        const read = await readSse(response.body);
        return { runId, lastType: read.lastType, ms: performance.now() - begun };
      }),
    );
    const wall = performance.now() - started;
    // Every run of every chain: exactly one terminal event, last, in what is stored.
    let runs = 0;
    let lost = results.filter((result) => result.lastType !== 'complete').length;
    for (const result of results) {
      let runId: string | undefined = result.runId;
      for (let level = 0; level <= depth && runId; level++) {
        runs++;
        const { events } = await org.app.chat.replay(runId, 0);
        const decoded = events.map((event) => JSON.parse(event.json) as { type: string; content: { tool?: string; args?: { run_id?: string } } });
        const terminals = decoded.filter((event) => event.type === 'complete' || event.type === 'error');
        if (terminals.length !== 1 || decoded.at(-1)?.type !== 'complete') lost++;
        runId = decoded.find((event) => event.type === 'tool_call' && event.content.tool === 'delegate')?.content.args?.run_id ?? undefined;
        if (level < depth && !runId) lost++;
      }
    }
    const times = results.map((result) => result.ms).sort((a, b) => a - b);
    return {
      [`${prefix}.chains`]: count,
      [`${prefix}.depth`]: depth,
      [`${prefix}.runs`]: runs,
      [`${prefix}.wall_ms`]: Math.round(wall),
      [`${prefix}.wall_ms_per_run`]: round(wall / runs),
      [`${prefix}.chain_p50_ms`]: round(percentile(times, 50)),
      [`${prefix}.chain_p95_ms`]: round(percentile(times, 95)),
      [`${prefix}.lost_terminal_events`]: lost,
    };
  } finally {
    await org.close();
  }
}

/** Every figure of the delegation benchmark. */
export async function benchDelegation(): Promise<Record<string, number>> {
  return { ...(await overhead()), ...(await chains(0, 'delegation.chains_baseline')), ...(await chains(3, 'delegation.chains')) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchDelegation(), null, 2));
}
