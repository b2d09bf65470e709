/**
 * Chat benchmark (issue 4), on real org instances over loopback HTTP:
 *
 * 1. `chat.ttfe.*`: time to first event of a turn with the local runtime — from sending
 *    `POST /api/org/chat/message` to receiving the first `data:` frame — over
 *    BENCH_CHAT_TURNS sequential turns (default 200, after 20 warm-up turns). It covers
 *    auth, validation, the history append of the user message, enrichment (skill
 *    search, recent history) and the first event's group-committed append.
 * 2. `chat.relay.*`: events per second from the example container agent emitting
 *    BENCH_CHAT_FLOOD text events (default 100,000; `flood N`), read directly from the
 *    container, and read through org's SSE endpoint (validated, numbered, persisted to
 *    history, re-framed), both read by the same reader (`readSse`). Over
 *    BENCH_CHAT_RELAY_ROUNDS rounds of the two (default 5), each side's fastest run is
 *    kept: `chat.relay.ratio` = through org ÷ direct; beside it the CPU per event of
 *    those runs (this process, and the agent's from /proc), and `chat.relay.cpu_ratio` =
 *    CPU of the direct path ÷ CPU through org.
 * 3. `chat.nodes.<n>.*`: adding n nodes (BENCH_CHAT_NODES, default 1000,5000) over HTTP
 *    to one structure with several requests in flight: adds per second over the first and
 *    the last thousand, beside adds one at a time and the disk's one-at-a-time fsync rate.
 * 4. `chat.streams.<n>.*`: n concurrent streams (BENCH_CHAT_STREAMS, default 1000,5000),
 *    one per node of one wide structure (every node has n − 1 peers), with a 1 s
 *    keepalive and a scripted turn of about 2.4 s: how long opening them took, time to
 *    each stream's first event, how many saw a keepalive comment and their `complete`
 *    event, and the process RSS (server and client share the process).
 *
 * Run alone with `npx tsx bench/chat.ts`, or through `npm run bench -- chat`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { envNumber, processCpuMicros, readSse, spawnAgent } from './support.js';
import type { FastifyInstance } from 'fastify';
import { createApp, type App, type AppDeps } from '../src/app.js';
import { resolveConnectionLimits } from '../src/core/config-connections.js';
import { resolveConfig, type OrgConfig } from '../src/core/config.js';
import { createScriptedRuntime } from '../test/helpers/scripted-runtime.js';
import { buildServer } from '../src/server/index.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';


interface Instance {
  app: App;
  server: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** An org instance on a temp home, listening on loopback, with the rate limit out of the way. */
async function instance(overrides: Partial<OrgConfig> = {}, deps: AppDeps = {}): Promise<Instance> {
  const home = await mkdtemp(join(tmpdir(), 'org-bench-chat-'));
  const config: OrgConfig = {
    ...resolveConfig({ home, port: 0, demo: false, allowEgress: ['loopback'] }, { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'config') }),
    rateLimit: 1_000_000_000,
    watchSkills: false,
    // Thousands of streams from one address: the connection caps are lifted for the bench.
    connections: { ...resolveConnectionLimits({}, {}), maxConnections: 1_000_000, maxConnectionsPerAddress: 1_000_000 },
    ...overrides,
  };
  const app = await createApp(config, { log: () => undefined, ...deps });
  const server = await buildServer(app, { version: 'bench' });
  // A backlog for thousands of simultaneous connects (the kernel caps it at somaxconn).
  await server.listen({ host: '127.0.0.1', port: 0, backlog: 8192 });
  const address = server.server.address();
  if (!address || typeof address !== 'object') throw new Error('server has no TCP address');
  return {
    app,
    server,
    url: `http://127.0.0.1:${address.port}`,
    async close() {
      server.server.closeAllConnections();
      await server.close();
      await app.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}


function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

/** 1. Time to first event, local runtime. */
async function timeToFirstEvent(): Promise<Record<string, number>> {
  const turns = envNumber('BENCH_CHAT_TURNS', 200);
  const org = await instance();
  try {
    const structure = await org.app.structures.create({ name: 'Bench', template: 'exec-team', ownerId: null });
    const body = '## [gather] Step 1: Gather the figures\n\nCollect them.\n\n## [write] Step 2: Write it up\n\nDecision: send it on Friday.\n';
    for (const [slug, name] of [
      ['weekly-report', 'Weekly report'],
      ['vendor-onboarding', 'Vendor onboarding'],
      ['month-end-close', 'Month-end close'],
    ] as const) {
      await org.app.skills.upsert({ slug, frontmatter: { type: 'skill', name, status: 'complete', summary: `${name} playbook.` }, body });
    }
    const messages = ['write the weekly report', 'onboard a new vendor', 'close the month', 'something no skill covers'];
    const times: number[] = [];
    for (let index = 0; index < turns + 20; index++) {
      const started = performance.now();
      let first = 0;
      const response = await request(`${org.url}/api/org/chat/message`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ structure_id: structure.id, role_id: 'exec-cfo', message: messages[index % messages.length] }),
      });
      if (response.statusCode !== 200) throw new Error(`chat answered ${response.statusCode}: ${await response.body.text()}`);
      const result = await readSse(response.body, () => {
        first = performance.now() - started;
      });
      if (result.lastType !== 'complete') throw new Error(`a local turn ended with ${result.lastType}`);
      if (index >= 20) times.push(first);
    }
    times.sort((a, b) => a - b);
    return { 'chat.ttfe.turns': turns, 'chat.ttfe.p50_ms': round(percentile(times, 50)), 'chat.ttfe.p99_ms': round(percentile(times, 99)) };
  } finally {
    await org.close();
  }
}


/** 2. Relay throughput: the container read directly, then through org. */
async function relay(): Promise<Record<string, number>> {
  const count = envNumber('BENCH_CHAT_FLOOD', 100_000);
  const agent = await spawnAgent();
  const org = await instance();
  try {
    const structure = await org.app.structures.create({ name: 'Relay', template: 'blank', ownerId: null });
    const node = await org.app.nodes.add(structure.id, { role_id: 'relay-agent', label: 'Relay', parent_id: null, container_url: agent.url }, 'bench');
    /** CPU µs used by this process (org and the reader) and by the container agent. */
    const cpuNow = () => {
      const own = process.cpuUsage();
      return { own: own.user + own.system, agent: processCpuMicros(agent.pid) };
    };
    const direct = async (n: number) => {
      const cpu = cpuNow();
      const started = performance.now();
      const response = await request(`${agent.url}/turn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ run_id: 'bench', message: `flood ${n}`, structure: { id: structure.id, name: 'Relay' }, node: { label: 'Relay' }, skills: [], history: [], attachments: [] }),
      });
      const result = await readSse(response.body);
      return { ...result, seconds: (performance.now() - started) / 1000, cpu: cpuSince(cpu) };
    };
    const cpuSince = (before: { own: number; agent: number }) => {
      const after = cpuNow();
      return { own: after.own - before.own, agent: after.agent - before.agent };
    };
    const through = async (n: number) => {
      const cpu = cpuNow();
      const started = performance.now();
      const response = await request(`${org.url}/api/org/chat/message`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ structure_id: structure.id, role_id: node.role_id, message: `flood ${n}` }),
      });
      if (response.statusCode !== 200) throw new Error(`chat answered ${response.statusCode}: ${await response.body.text()}`);
      const result = await readSse(response.body);
      return { ...result, seconds: (performance.now() - started) / 1000, cpu: cpuSince(cpu) };
    };
    await direct(5000);
    await through(5000);
    // Rounds of the two, one after the other, keeping each side's best: a busy machine
    // slows a run down, never speeds it up, and both sides get the same chances.
    const rounds = Math.max(1, envNumber('BENCH_CHAT_RELAY_ROUNDS', 5));
    type Result = Awaited<ReturnType<typeof direct>>;
    let plain: Result | undefined;
    let relayed: Result | undefined;
    for (let round = 0; round < rounds; round++) {
      const pair = [
        ['direct', await direct(count)],
        ['org', await through(count)],
      ] as const;
      for (const [name, result] of pair) {
        if (result.frames !== count + 1 || result.lastType !== 'complete') throw new Error(`${name}: ${result.frames} frames ending with ${result.lastType}`);
      }
      if (!plain || pair[0][1].seconds < plain.seconds) plain = pair[0][1];
      if (!relayed || pair[1][1].seconds < relayed.seconds) relayed = pair[1][1];
    }
    if (!plain || !relayed) throw new Error('no relay round ran');
    const directRate = plain.frames / plain.seconds;
    const orgRate = relayed.frames / relayed.seconds;
    // CPU per event, which a loaded machine disturbs less than the rates: the reader alone
    // (direct) and org with the reader (through org), and the agent's in each case.
    const perEvent = (micros: number) => round(micros / (count + 1), 2);
    const directCpu = plain.cpu.own + plain.cpu.agent;
    const orgCpu = relayed.cpu.own + relayed.cpu.agent;
    return {
      'chat.relay.events': count + 1,
      'chat.relay.rounds': rounds,
      'chat.relay.direct_events_per_s': Math.round(directRate),
      'chat.relay.org_events_per_s': Math.round(orgRate),
      'chat.relay.ratio': round(orgRate / directRate, 3),
      'chat.relay.direct_reader_cpu_us_per_event': perEvent(plain.cpu.own),
      'chat.relay.org_and_reader_cpu_us_per_event': perEvent(relayed.cpu.own),
      'chat.relay.agent_cpu_us_per_event': perEvent(relayed.cpu.agent),
      'chat.relay.cpu_ratio': round(directCpu / orgCpu, 3),
    };
  } finally {
    await org.close();
    await agent.close();
  }
}

/**
 * 3. Adding nodes over HTTP to one structure the way a client with several requests in
 * flight does (BENCH_CHAT_NODES_INFLIGHT, default 8): the rate of the first thousand and
 * of the last thousand (a store that rewrote the whole structure per add would slow down
 * as it grows; a journal stays flat). Beside them, measured in the same run: adds one at
 * a time, and the disk's rate of one durable append at a time (write + fdatasync), the
 * ceiling of any store that syncs each add on its own.
 */
async function nodeAdds(count: number): Promise<Record<string, number>> {
  const inFlight = envNumber('BENCH_CHAT_NODES_INFLIGHT', 8);
  const org = await instance();
  try {
    const add = async (structureId: string, i: number, parent: string | null): Promise<string> => {
      const response = await request(`${org.url}/api/org/structures/${structureId}/agents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ role_id: `team-n${i}`, label: `Node ${i}`, parent_id: parent }),
      });
      const body = (await response.body.json()) as { id: string };
      if (response.statusCode !== 201) throw new Error(`adding a node answered ${response.statusCode}: ${JSON.stringify(body)}`);
      return body.id;
    };
    /** Adds nodes from..to-1 with `inFlight` requests outstanding at any time; adds per second. */
    const addRange = async (structureId: string, parent: string, from: number, to: number, width: number): Promise<number> => {
      const started = performance.now();
      let next = from;
      await Promise.all(
        Array.from({ length: width }, async () => {
          while (next < to) await add(structureId, next++, parent);
        }),
      );
      return (to - from) / ((performance.now() - started) / 1000);
    };
    // Warm-up on a structure of its own: the first window measures adds, not compilation.
    const warm = await org.app.structures.create({ name: 'Warm-up', template: 'blank', ownerId: null });
    const warmRoot = await add(warm.id, 0, null);
    await addRange(warm.id, warmRoot, 1, 101, inFlight);
    const sequentialRate = await addRange(warm.id, warmRoot, 101, 301, 1);
    const fsyncRate = await durableAppendRate(join(org.app.config.home, 'bench-fsync.jsonl'), 200);
    const structure = await org.app.structures.create({ name: 'Adds', template: 'blank', ownerId: null });
    const root = await add(structure.id, 0, null);
    // Two windows that never overlap: adds 1..window and the last `window` adds.
    const window = Math.min(1000, Math.floor((count - 1) / 2));
    const firstRate = await addRange(structure.id, root, 1, window + 1, inFlight);
    await addRange(structure.id, root, window + 1, count - window, inFlight);
    // CPU of this process (server and client) over the last window: what an add costs, which a busy machine disturbs less than the rate.
    const cpuBefore = process.cpuUsage();
    const lastRate = await addRange(structure.id, root, count - window, count, inFlight);
    const cpu = process.cpuUsage(cpuBefore);
    const key = `chat.nodes.${count}`;
    return {
      [`${key}.in_flight`]: inFlight,
      [`${key}.first_adds_per_s`]: Math.round(firstRate),
      [`${key}.last_adds_per_s`]: Math.round(lastRate),
      [`${key}.last_over_first`]: round(lastRate / firstRate, 3),
      [`${key}.last_cpu_us_per_add`]: Math.round((cpu.user + cpu.system) / window),
      [`${key}.one_at_a_time_adds_per_s`]: Math.round(sequentialRate),
      [`${key}.disk_fsyncs_per_s`]: Math.round(fsyncRate),
      [`${key}.last_over_disk_fsyncs`]: round(lastRate / fsyncRate, 3),
    };
  } finally {
    await org.close();
  }
}

/** Durable appends per second, one at a time, of a node-sized line to a file kept open. */
async function durableAppendRate(path: string, count: number): Promise<number> {
  const handle = await open(path, 'a');
  try {
    const line = `${JSON.stringify({ seq: 1, at: new Date().toISOString(), actor: 'bench', change: { op: 'node.add', node: { id: randomUUID(), role_id: 'team-n1', label: 'Node 1' } } })}\n`;
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      await handle.write(line);
      await handle.datasync();
    }
    return count / ((performance.now() - started) / 1000);
  } finally {
    await handle.close();
  }
}

/**
 * 4. Many concurrent streams held past a keepalive interval, one per node of one wide
 * structure (a root and `count` children: every node has count − 1 peers).
 */
async function manyStreams(count: number): Promise<Record<string, number>> {
  const keepaliveMs = 1000;
  const runtime = createScriptedRuntime(
    [
      { type: 'thought', content: 'working' },
      { type: 'text', content: 'still working' },
      { type: 'complete', content: { summary: 'held open', artifacts: [] } },
    ],
    { delayMs: 1200 },
  );
  const org = await instance({ keepaliveMs }, { runtime: () => runtime });
  // Thousands of connections opened at once: a generous connect timeout, so the figure is the server's, not the client's give-up.
  const dispatcher = new Agent({ connections: null, pipelining: 1, keepAliveTimeout: 10_000, connect: { timeout: 120_000 } });
  try {
    const structure = await org.app.structures.create({ name: 'Streams', template: 'blank', ownerId: null });
    const root = await org.app.nodes.add(structure.id, { role_id: 'team-root', label: 'Root', parent_id: null }, 'bench');
    const targets: string[] = [];
    for (let i = 0; i < count; i++) {
      const node = await org.app.nodes.add(structure.id, { role_id: `team-s${i}`, label: `Stream ${i}`, parent_id: root.id }, 'bench');
      targets.push(node.role_id);
    }
    globalThis.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 100);
    const started = performance.now();
    let opened = 0;
    let openedAt = 0;
    const firstEvents: number[] = [];
    const results = await Promise.all(
      targets.map(async (roleId) => {
        const sent = performance.now();
        const response = await request(`${org.url}/api/org/chat/message`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ structure_id: structure.id, role_id: roleId, message: 'hold the line' }),
          dispatcher,
        });
        if (response.statusCode !== 200) throw new Error(`chat answered ${response.statusCode}: ${await response.body.text()}`);
        if (++opened === count) openedAt = performance.now() - started;
        return readSse(response.body, () => firstEvents.push(performance.now() - sent));
      }),
    );
    const duration = performance.now() - started;
    clearInterval(sampler);
    firstEvents.sort((x, y) => x - y);
    const keepalives = results.map((result) => result.keepalives);
    const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
    const key = `chat.streams.${count}`;
    return {
      [`${key}.open_all_ms`]: Math.round(openedAt),
      [`${key}.first_event_p50_ms`]: Math.round(percentile(firstEvents, 50)),
      [`${key}.first_event_max_ms`]: Math.round(firstEvents.at(-1) ?? 0),
      [`${key}.duration_ms`]: Math.round(duration),
      [`${key}.with_keepalive`]: keepalives.filter((n) => n >= 1).length,
      [`${key}.complete`]: results.filter((result) => result.lastType === 'complete').length,
      [`${key}.rss_before_mb`]: mb(rssBefore),
      [`${key}.rss_peak_mb`]: mb(rssPeak),
      [`${key}.rss_per_stream_kb`]: round((rssPeak - rssBefore) / 1024 / count, 1),
    };
  } finally {
    await dispatcher.close();
    await org.close();
  }
}

/** A comma list of positive counts from the environment. */
function envCounts(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw.split(',').map((part) => {
    const value = Number(part);
    if (!Number.isInteger(value) || value <= 1) throw new Error(`${name} must list whole numbers above 1, got "${raw}"`);
    return value;
  });
}

/** Runs the three measurements and prints the figures. */
export async function benchChat(): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  // BENCH_CHAT_PARTS=relay (comma list of ttfe, relay, nodes, streams) runs only those parts.
  const parts = (process.env.BENCH_CHAT_PARTS ?? 'ttfe,relay,nodes,streams').split(',');
  if (parts.includes('ttfe')) Object.assign(figures, await timeToFirstEvent());
  if (parts.includes('relay')) Object.assign(figures, await relay());
  if (parts.includes('nodes')) for (const count of envCounts('BENCH_CHAT_NODES', [1000, 5000])) Object.assign(figures, await nodeAdds(count));
  if (parts.includes('streams')) for (const count of envCounts('BENCH_CHAT_STREAMS', [1000, 5000])) Object.assign(figures, await manyStreams(count));
  const width = Math.max(...Object.keys(figures).map((key) => key.length));
  for (const [key, value] of Object.entries(figures)) console.log(`${key.padEnd(width)}  ${value}`);
  return figures;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  benchChat().then(
    () => undefined,
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
