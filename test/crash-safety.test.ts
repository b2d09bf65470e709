/**
 * Crash safety (issue 2, DESIGN.md "Writes are atomic"): `org serve` runs as a child
 * process and receives a stream of concurrent writes (structures from every template,
 * nodes, node patches, MCP keys, users, invites). At a seeded random moment it is killed
 * with SIGKILL. Then every state file under `.org/` must parse, and after a restart every
 * write that got a 2xx must be visible through the API. The rounds share one home, so
 * each restart also re-checks the writes of every earlier round. A last test does the
 * same with SIGTERM, which must exit 0 promptly with the state intact.
 *
 * The kill points change from run to run; set ORG_CRASH_SEED to replay a run's plan and
 * ORG_CRASH_VERBOSE=1 to print what each round did.
 */
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startServe, type ServeChild } from './helpers/child.js';

const ADMIN_TOKEN = 'crash-admin-token-0123456789abcdef';
const TEMPLATES = ['blank', 'exec-team', 'sales-team', 'research-lab', 'personal'];
const ROLES = ['viewer', 'operator', 'owner'] as const;
/** Writes in flight at once. */
const CONCURRENCY = 6;
const SEED = process.env.ORG_CRASH_SEED ? Number(process.env.ORG_CRASH_SEED) : (Date.now() ^ (process.pid << 8)) >>> 0;

/** mulberry32: a small seeded PRNG, so a failing plan can be replayed. */
class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
}

// ---------------------------------------------------------------------------------------
// HTTP

/** A network failure: the request may or may not have been applied (never acknowledged). */
class NoReply extends Error {}

interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test reads loosely typed JSON
  body: any;
}

async function call(base: string, method: string, path: string, token?: string, body?: unknown): Promise<Reply> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    text = await response.text();
  } catch (error) {
    throw new NoReply(error instanceof Error ? error.message : String(error));
  }
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

// ---------------------------------------------------------------------------------------
// What the client knows was acknowledged

interface NodeState {
  id: string;
  roleId: string;
  label: string;
  x: number;
  y: number;
  /** A patch sent but not acknowledged (the server died): either value may be on disk. */
  pending?: { label: string; x: number; y: number };
  /** A patch is in flight: one at a time per node, so the acknowledged value is unambiguous. */
  busy: boolean;
}

interface StructureState {
  id: string;
  /** The creator's token (the administrator or an owner user). */
  token: string;
  nodes: Map<string, NodeState>;
}

interface Model {
  structures: StructureState[];
  users: { email: string; token: string }[];
  keys: { structureId: string; roleId: string; token: string }[];
  invites: { structureId: string; token: string; id: string; email: string }[];
  /** Acknowledged node adds: each must have its audit entry on disk (written before the answer). */
  addedNodes: { structureId: string; roleId: string }[];
  /** Acknowledged writes in total. */
  acked: number;
  /** Unexpected statuses (5xx other than a 503 while shutting down). */
  unexpected: string[];
  seq: number;
}

function newModel(): Model {
  return { structures: [], users: [], keys: [], invites: [], addedNodes: [], acked: 0, unexpected: [], seq: 0 };
}

type Write = (base: string, model: Model, rng: Rng) => Promise<boolean>;

function note(model: Model, what: string, reply: Reply, expected: number[]): boolean {
  if (expected.includes(reply.status)) return true;
  // 400: two roots raced on a blank structure; 503: the server is closing (SIGTERM).
  if (reply.status >= 500 && reply.status !== 503) model.unexpected.push(`${what} → ${reply.status} ${JSON.stringify(reply.body)}`);
  return false;
}

const createStructure: Write = async (base, model, rng) => {
  const token = model.users.length > 0 && rng.next() < 0.5 ? rng.pick(model.users).token : ADMIN_TOKEN;
  const template = rng.pick(TEMPLATES);
  const reply = await call(base, 'POST', '/api/org/structures', token, { name: `S${++model.seq}`, template });
  if (!note(model, `create ${template}`, reply, [201])) return false;
  const nodes = new Map<string, NodeState>();
  for (const agent of reply.body.agents as { id: string; role_id: string; label: string; x: number; y: number }[]) {
    nodes.set(agent.role_id, { id: agent.id, roleId: agent.role_id, label: agent.label, x: agent.x, y: agent.y, busy: false });
  }
  model.structures.push({ id: reply.body.id, token, nodes });
  return true;
};

const addNode: Write = async (base, model, rng) => {
  const structure = rng.pick(model.structures);
  const parents = [...structure.nodes.values()];
  const roleId = `n${SEED % 1000}-${++model.seq}`;
  const body = {
    role_id: roleId,
    label: `Node ${model.seq}`,
    parent_id: parents.length > 0 ? rng.pick(parents).id : null,
    x: rng.int(-500, 500),
    y: rng.int(0, 800),
    starting_context: `context ${model.seq} `.repeat(rng.int(1, 50)),
  };
  const reply = await call(base, 'POST', `/api/org/structures/${structure.id}/agents`, structure.token, body);
  if (!note(model, 'add node', reply, [201])) return false;
  structure.nodes.set(roleId, { id: reply.body.id, roleId, label: body.label, x: body.x, y: body.y, busy: false });
  model.addedNodes.push({ structureId: structure.id, roleId });
  return true;
};

const patchNode: Write = async (base, model, rng) => {
  const candidates = model.structures.flatMap((structure) =>
    [...structure.nodes.values()].filter((node) => !node.busy).map((node) => ({ structure, node })),
  );
  if (candidates.length === 0) return createStructure(base, model, rng);
  const { structure, node } = rng.pick(candidates);
  const patch = { label: `Patched ${++model.seq}`, x: rng.int(-1000, 1000), y: rng.int(-1000, 1000) };
  node.busy = true;
  node.pending = patch;
  const reply = await call(base, 'PATCH', `/api/org/structures/${structure.id}/agents/${node.roleId}`, structure.token, patch);
  // A NoReply leaves the node busy with its pending patch until the next verification.
  delete node.pending;
  node.busy = false;
  if (!note(model, 'patch node', reply, [200])) return false;
  Object.assign(node, patch);
  return true;
};

const mintKey: Write = async (base, model, rng) => {
  const structure = rng.pick(model.structures.filter((candidate) => candidate.nodes.size > 0));
  const node = rng.pick([...structure.nodes.values()]);
  const reply = await call(base, 'POST', `/api/org/structures/${structure.id}/agents/${node.roleId}/mcp-key`, structure.token, {
    label: `key ${++model.seq}`,
  });
  if (!note(model, 'mint key', reply, [201])) return false;
  model.keys.push({ structureId: structure.id, roleId: node.roleId, token: reply.body.token });
  return true;
};

const createUser: Write = async (base, model) => {
  const email = `user${++model.seq}-${SEED}@example.com`;
  const reply = await call(base, 'POST', '/api/org/users', ADMIN_TOKEN, { email });
  if (!note(model, 'create user', reply, [201])) return false;
  model.users.push({ email, token: reply.body.token });
  return true;
};

const share: Write = async (base, model, rng) => {
  const structure = rng.pick(model.structures);
  const email = `invitee${++model.seq}-${SEED}@example.com`;
  const reply = await call(base, 'POST', `/api/org/structures/${structure.id}/share`, structure.token, { email, role: rng.pick(ROLES) });
  if (!note(model, 'share', reply, [200])) return false;
  model.invites.push({ structureId: structure.id, token: structure.token, id: reply.body.invite.id, email });
  return true;
};

/** One random write, weighted; falls back to what is possible with the state so far. */
function oneWrite(base: string, model: Model, rng: Rng): Promise<boolean> {
  const roll = rng.next();
  const withNodes = model.structures.some((structure) => structure.nodes.size > 0);
  if (model.structures.length === 0 || roll < 0.15) return createStructure(base, model, rng);
  if (roll < 0.22) return createUser(base, model, rng);
  if (roll < 0.45) return addNode(base, model, rng);
  if (!withNodes) return createStructure(base, model, rng);
  if (roll < 0.75) return patchNode(base, model, rng);
  if (roll < 0.88) return mintKey(base, model, rng);
  return share(base, model, rng);
}

/**
 * Sends writes, CONCURRENCY at a time, until `stopped()`; `onAck` runs after each
 * acknowledged one. Network failures are expected once the server is gone.
 */
async function writeStream(base: string, model: Model, rng: Rng, stopped: () => boolean, onAck: () => void): Promise<void> {
  const worker = async () => {
    while (!stopped()) {
      try {
        if (await oneWrite(base, model, rng)) {
          model.acked++;
          onAck();
        }
      } catch (error) {
        if (!(error instanceof NoReply)) throw error;
        if (!stopped()) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

// ---------------------------------------------------------------------------------------
// Checks

/** Every state file under `<home>/.org` parses; returns the counts seen. */
async function checkFiles(home: string): Promise<{ files: number; temps: string[]; problems: string[] }> {
  const problems: string[] = [];
  const temps: string[] = [];
  let files = 0;
  const entries = await readdir(join(home, '.org'), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    // write-file-atomic's temp files (`<name>.<uint32>`): a crash before the rename leaves them.
    if (/\.(json|jsonl|eml)\.\d+$/.test(entry.name)) {
      temps.push(file);
      continue;
    }
    const text = await readFile(file, 'utf8');
    files++;
    if (entry.name.endsWith('.json')) {
      try {
        JSON.parse(text);
      } catch (error) {
        problems.push(`${file}: ${(error as Error).message}`);
      }
    } else if (entry.name.endsWith('.jsonl')) {
      const lines = text.split('\n');
      lines.forEach((line, index) => {
        if (!line) return;
        try {
          JSON.parse(line);
        } catch (error) {
          // Only an unterminated last line may be torn.
          if (index !== lines.length - 1) problems.push(`${file}:${index + 1}: ${(error as Error).message}`);
        }
      });
    } else if (entry.name.endsWith('.eml')) {
      if (!/^To: /m.test(text) || !text.includes('\n\n')) problems.push(`${file}: not a complete message`);
    }
  }
  return { files, temps, problems };
}

/** Runs `tasks` with at most `limit` at once. */
async function inBatches<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += limit) await Promise.all(items.slice(i, i + limit).map(task));
}

/**
 * Checks through the API that every acknowledged write is present, then aligns the model
 * with what the server has (settling patches whose outcome was unknown).
 */
async function verify(base: string, model: Model): Promise<{ checked: number; failures: string[] }> {
  const failures: string[] = [];
  let checked = 0;
  await inBatches(model.structures, 8, async (structure) => {
    const reply = await call(base, 'GET', `/api/org/structures/${structure.id}`, structure.token);
    checked++;
    if (reply.status !== 200) {
      failures.push(`structure ${structure.id}: GET → ${reply.status}`);
      return;
    }
    const actual = new Map((reply.body.agents as { id: string; role_id: string; label: string; x: number; y: number }[]).map((a) => [a.role_id, a]));
    for (const node of structure.nodes.values()) {
      checked++;
      const found = actual.get(node.roleId);
      if (!found) {
        failures.push(`structure ${structure.id}: acknowledged node ${node.roleId} is missing`);
        continue;
      }
      const same = (value: { label: string; x: number; y: number }) => found.label === value.label && found.x === value.x && found.y === value.y;
      if (found.id !== node.id || !(same(node) || (node.pending && same(node.pending)))) {
        failures.push(
          `node ${node.roleId}: expected ${JSON.stringify({ id: node.id, label: node.label, x: node.x, y: node.y, pending: node.pending })}, got ${JSON.stringify({ id: found.id, label: found.label, x: found.x, y: found.y })}`,
        );
      }
    }
    // From now on the server's state is the acknowledged baseline (nodes whose creation
    // was cut off but landed included).
    structure.nodes = new Map(
      [...actual.values()].map((a) => [a.role_id, { id: a.id, roleId: a.role_id, label: a.label, x: a.x, y: a.y, busy: false }]),
    );
  });
  await inBatches(model.keys, 8, async (key) => {
    checked++;
    const reply = await call(base, 'GET', `/api/org/structures/${key.structureId}`, key.token);
    if (reply.status !== 200) failures.push(`MCP key of ${key.roleId} in ${key.structureId}: GET structure → ${reply.status}`);
  });
  await inBatches(model.users, 8, async (user) => {
    checked++;
    const reply = await call(base, 'GET', '/api/org/structures', user.token);
    if (reply.status !== 200) failures.push(`user ${user.email}: GET /structures → ${reply.status}`);
  });
  const byStructure = new Map<string, Model['invites']>();
  for (const invite of model.invites) byStructure.set(invite.structureId, [...(byStructure.get(invite.structureId) ?? []), invite]);
  await inBatches([...byStructure.values()], 8, async (invites) => {
    const first = invites[0]!;
    const reply = await call(base, 'GET', `/api/org/structures/${first.structureId}/members`, first.token);
    const ids = new Set(reply.status === 200 ? (reply.body.invites as { id: string }[]).map((invite) => invite.id) : []);
    for (const invite of invites) {
      checked++;
      if (!ids.has(invite.id)) failures.push(`invite ${invite.id} (${invite.email}) missing from members (${reply.status})`);
    }
  });
  return { checked, failures };
}

/** Checks that each acknowledged invite's e-mail is in the outbox. */
async function checkOutbox(home: string, model: Model): Promise<string[]> {
  const dir = join(home, '.org', 'outbox');
  const names = (await readdir(dir)).filter((name) => name.endsWith('.eml'));
  const all = (await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8')))).join('\n');
  return model.invites.filter((invite) => !all.includes(invite.email)).map((invite) => `no .eml in the outbox for ${invite.email}`);
}

/** Checks that each acknowledged node add has its `node.add` entry in the audit log on disk. */
async function checkAudit(home: string, model: Model): Promise<string[]> {
  let text = '';
  try {
    text = await readFile(join(home, '.org', 'audit.jsonl'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const logged = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    const entry = JSON.parse(line) as { action: string; structure_id: string | null; target: { id: string } | null };
    if (entry.action === 'node.add' && entry.target) logged.add(`${entry.structure_id}/${entry.target.id}`);
  }
  return model.addedNodes
    .filter((added) => !logged.has(`${added.structureId}/${added.roleId}`))
    .map((added) => `acknowledged node ${added.roleId} in ${added.structureId} has no node.add audit entry`);
}

// ---------------------------------------------------------------------------------------

function serve(home: string): Promise<ServeChild> {
  return startServe({
    home,
    args: ['--no-demo'],
    env: { ORG_ADMIN_TOKEN: ADMIN_TOKEN, ORG_CONFIG_DIR: join(home, 'cfg'), ORG_RATE_LIMIT: '1000000' },
  });
}

/** Restarts on `home` and checks everything acknowledged so far; returns the running child. */
async function restartAndVerify(home: string, model: Model, context: string): Promise<ServeChild> {
  const child = await serve(home);
  try {
    // Ready: the skill index is loaded and its start-up snapshot written (no save in flight).
    await child.ready;
    // Loading the state removed the temp files a crash left beside JSON documents and in the outbox.
    const { temps } = await checkFiles(home);
    expect(temps.filter((file) => /\.(json|eml)\.\d+$/.test(file)), `${context}: stale temp files after start`).toEqual([]);
    const { checked, failures } = await verify(child.url, model);
    failures.push(...(await checkOutbox(home, model)), ...(await checkAudit(home, model)));
    expect(failures, `${context}: acknowledged writes missing after restart (seed ${SEED})`).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(model.structures.length);
    return child;
  } catch (error) {
    await child.stop('SIGKILL');
    throw error;
  }
}

async function expectFilesParse(home: string, context: string): Promise<{ files: number; temps: string[] }> {
  const result = await checkFiles(home);
  expect(result.problems, `${context}: state files that do not parse (seed ${SEED})`).toEqual([]);
  return result;
}

interface KillPlan {
  label: string;
  kind: 'ms' | 'acks';
  value: number;
}

function killPlans(rng: Rng, count: number): KillPlan[] {
  return Array.from({ length: count }, (_, i) => {
    const kind = i % 2 === 0 ? 'ms' : 'acks';
    // By time: the first round early (the first creations in flight), later ones mid-stream.
    const value = kind === 'acks' ? rng.int(20, 150) : i === 0 ? rng.int(20, 200) : rng.int(200, 1500);
    return { label: kind === 'ms' ? `${value} ms of writes` : `${value} acknowledged writes`, kind, value };
  });
}

describe(`crash safety of org serve (seed ${SEED}; replay with ORG_CRASH_SEED=${SEED})`, () => {
  const rng = new Rng(SEED);
  const plans = killPlans(rng, 6);
  const model = newModel();
  let home = '';

  beforeAll(async () => {
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-crash-'));
  }, 120_000);

  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it.each(plans)('SIGKILL after $label: files parse and every acknowledged write survives', { timeout: 120_000 }, async (plan) => {
    // The first start of each round re-checks every earlier round.
    const child = await restartAndVerify(home, model, 'before the round');
    const before = model.acked;
    let stopped = false;
    const kill = () => {
      if (stopped) return;
      stopped = true;
      child.process.kill('SIGKILL');
    };
    // A plan by time kills at a random instant (that instant is the point of the round); a
    // plan by count kills on the acknowledgement that reaches it, however long that takes.
    const timer = plan.kind === 'ms' ? setTimeout(kill, plan.value) : undefined;
    try {
      await writeStream(child.url, model, rng, () => stopped, () => {
        if (plan.kind === 'acks' && model.acked - before >= plan.value) kill();
      });
    } finally {
      clearTimeout(timer);
      kill();
    }
    expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(model.unexpected, `unexpected server errors (seed ${SEED})`).toEqual([]);

    const { files, temps } = await expectFilesParse(home, `after ${plan.label}`);
    if (process.env.ORG_CRASH_VERBOSE) {
      console.log(`${plan.label}: ${model.acked - before} acknowledged, ${files} state files, ${temps.length} leftover temp files`);
    }
    const again = await restartAndVerify(home, model, `after ${plan.label}`);
    await again.stop('SIGKILL');
  });

  it('acknowledged many writes across the rounds (the test is not vacuous)', () => {
    // The three rounds killed by count alone acknowledge at least 3 × 20.
    expect(model.acked).toBeGreaterThanOrEqual(60);
    expect(model.structures.length).toBeGreaterThan(0);
    expect(model.structures.some((structure) => structure.nodes.size > 0)).toBe(true);
    expect(model.addedNodes.length).toBeGreaterThan(0);
  });
});

describe('graceful shutdown of org serve', () => {
  let home = '';
  /** A server that has not exited yet (killed after a failed test). */
  let running: { stop(signal: NodeJS.Signals): Promise<unknown> } | undefined;

  beforeAll(async () => {
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-sigterm-'));
  }, 120_000);

  afterAll(async () => {
    await running?.stop('SIGKILL');
    if (home) await rm(home, { recursive: true, force: true });
  });

  // How long the stop takes is measured by `npm run bench -- search-http` (sigterm_to_exit_ms);
  // here the process must exit by itself with code 0, whatever the machine's speed.
  it('SIGTERM during writes: exits 0, leaves no temp files, keeps every acknowledged write', { timeout: 120_000 }, async () => {
    const rng = new Rng(SEED ^ 0x5eed);
    const model = newModel();
    const child = await serve(home);
    running = child;
    let stopped = false;
    const term = () => {
      if (stopped) return;
      stopped = true;
      child.process.kill('SIGTERM');
    };
    try {
      await writeStream(child.url, model, rng, () => stopped, () => {
        if (model.acked >= 40) term();
      });
    } finally {
      term();
    }
    const exit = await child.exited;
    running = undefined;
    expect(exit, `stderr: ${child.stderr()}`).toEqual({ code: 0, signal: null });
    expect(child.stderr()).toContain('SIGTERM received');
    expect(model.unexpected).toEqual([]);
    expect(model.acked).toBeGreaterThanOrEqual(40);

    const { temps } = await expectFilesParse(home, 'after SIGTERM');
    expect(temps, 'a graceful stop leaves no temp files').toEqual([]);
    const again = await restartAndVerify(home, model, 'after SIGTERM');
    expect(await again.stop('SIGTERM')).toEqual({ code: 0, signal: null });
  });
});
