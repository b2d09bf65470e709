/**
 * Webhooks with several `org serve` processes on one PostgreSQL database: a webhook
 * registered through one instance is listed and fires through the others; with every
 * instance pumping the shared outbox, each delivery reaches a real local receiver once
 * per attempt (a 500 answered is retried once, by whichever instance claims it), and the
 * deliveries log read through any instance says so; a delivery whose attempt was cut off
 * by its instance being killed is sent by another once that instance's lease runs out.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './support/database.js';
import { ensureBuilt, type ServeChild } from './helpers/child.js';
import { callJson, startMember, stopCluster } from './helpers/cluster.js';
import { eventually } from './helpers/sse.js';
import { startReceiver, verifyDelivery, type WebhookReceiver } from './helpers/webhook-receiver.js';

const ADMIN = 'hooks-admin-token-0123456789abcdef';
/** Long enough that no live instance is ever taken for dead under load. */
const LEASE_MS = 3000;

interface DeliveryEntry {
  id: string;
  status: string;
  response_code: number | null;
  attempts: { response_code: number | null }[];
}

/** A JSON call as the administrator. */
const api = <T = Record<string, unknown>>(base: string, method: string, path: string, body?: unknown) => callJson<T>(base, method, path, ADMIN, body);

describe('webhooks shared by instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  const dirs: string[] = [];
  const instances: ServeChild[] = [];
  let structureId: string;

  const start = () =>
    startMember({ instances, dirs }, database, { prefix: 'org-hooks-', admin: ADMIN, env: { ORG_LEASE_MS: String(LEASE_MS), ORG_WEBHOOK_RETRIES: '0,0,0' } });

  /** Runs a turn through `via` (the local runtime: it completes at once); resolves with its run id. */
  const chat = async (via: ServeChild, message: string) => {
    const sent = await api<{ run_id: string }>(via.url, 'POST', '/api/org/chat/message/sync', { structure_id: structureId, role_id: 'exec-cfo', message });
    expect(sent.status).toBe(200);
    return sent.body.run_id;
  };

  const register = async (via: ServeChild) => {
    const created = await api<{ id: string; secret: string }>(via.url, 'POST', `/api/org/structures/${structureId}/webhooks`, { url: receiver.url, events: ['run.completed'] });
    expect(created.status).toBe(201);
    return created.body;
  };

  const deliveries = async (via: ServeChild, webhookId: string) =>
    (await api<{ deliveries: DeliveryEntry[] }>(via.url, 'GET', `/api/org/structures/${structureId}/webhooks/${webhookId}/deliveries`)).body.deliveries;

  beforeAll(async () => {
    ensureBuilt();
    database = await testDatabase();
    receiver = await startReceiver();
    await Promise.all([start(), start(), start()]);
    const created = await api<{ id: string }>(instances[0]!.url, 'POST', '/api/org/structures', { name: 'Hooks', template: 'exec-team' });
    expect(created.status).toBe(201);
    structureId = created.body.id;
  }, 180_000);

  afterAll(() => stopCluster({ instances, services: [receiver], database, dirs }));

  it('registered on A, listed on B, fired by runs on every instance: each attempt made once, the log alike everywhere', async () => {
    const [a, b, c] = instances as [ServeChild, ServeChild, ServeChild];
    const hook = await register(a);
    const listed = await api<{ webhooks: { id: string }[] }>(b.url, 'GET', `/api/org/structures/${structureId}/webhooks`);
    expect(listed.body.webhooks.map((webhook) => webhook.id)).toEqual([hook.id]);

    // The first three requests are answered 500: those deliveries are retried once each.
    receiver.plan.push(500, 500, 500);
    const runs: string[] = [];
    for (const [index, via] of [a, b, c, a, b, c, a, b, c].entries()) runs.push(await chat(via, `close period ${index}`));
    const delivered = () => new Set(receiver.received.filter((r) => r.answered === 200).map((r) => r.json.data.run_id));
    await receiver.until(() => runs.every((run) => delivered().has(run)), 'every run delivered');

    const byId = new Map<string, number>();
    for (const received of receiver.received) byId.set(received.json.id, (byId.get(received.json.id) ?? 0) + 1);
    expect(byId.size).toBe(runs.length);
    // Each 500 cost exactly one more attempt, and each delivery was answered 200 exactly once.
    expect(receiver.received).toHaveLength(runs.length + 3);
    expect(receiver.received.filter((r) => r.answered === 200)).toHaveLength(runs.length);
    for (const received of receiver.received) expect(verifyDelivery(hook.secret, received)).toEqual(received.json);

    // The log, read through each instance, has every delivery delivered with its attempts.
    for (const via of [a, b, c]) {
      const log = await deliveries(via, hook.id);
      expect(log).toHaveLength(runs.length);
      for (const entry of log) {
        expect(entry).toMatchObject({ status: 'delivered', response_code: 200 });
        expect(entry.attempts).toHaveLength(byId.get(entry.id)!);
      }
    }
    expect((await api(c.url, 'DELETE', `/api/org/structures/${structureId}/webhooks/${hook.id}`)).status).toBe(204);
    expect((await api<{ webhooks: unknown[] }>(a.url, 'GET', `/api/org/structures/${structureId}/webhooks`)).body.webhooks).toEqual([]);
  });

  it('a delivery whose instance is killed mid-attempt is sent by another once its lease runs out', async () => {
    const hook = await register(instances[1]!);
    const before = receiver.received.length;
    receiver.plan.push('hold');
    // A message no playbook answers: a playbook that delegates would fire deliveries of its child runs first.
    const runId = await chat(instances[0]!, 'ping 4711');
    await receiver.until(() => receiver.received.length === before + 1, 'the first attempt');
    const held = receiver.received[before]!;
    expect(held.json.data.run_id).toBe(runId);

    // The instance holding the claim is found in the database and killed.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    let pid: number;
    try {
      const { rows } = await client.query<{ pid: number }>(
        `SELECT (i.info->>'pid')::int AS pid FROM webhook_deliveries d JOIN org_instances i ON i.id = d.owner WHERE d.id = $1`,
        [held.json.id],
      );
      pid = rows[0]!.pid;
    } finally {
      await client.end();
    }
    const victim = instances.find((instance) => instance.process.pid === pid)!;
    expect(victim).toBeDefined();
    await victim.stop('SIGKILL');
    const survivor = instances.find((instance) => instance !== victim && instance.process.exitCode === null && instance.process.signalCode === null)!;

    await receiver.until(() => receiver.received.length === before + 2, 'the delivery by another instance');
    const again = receiver.received[before + 1]!;
    expect(again.json.id).toBe(held.json.id);
    expect(again.body).toBe(held.body);
    expect(verifyDelivery(hook.secret, again)).toEqual(again.json);
    // The survivor records the answer just after it: the log says delivered, after the one attempt it made.
    let entry: DeliveryEntry | undefined;
    await eventually(async () => {
      entry = (await deliveries(survivor, hook.id)).find((candidate) => candidate.id === held.json.id);
      return entry?.status === 'delivered';
    });
    expect(entry!.attempts.map((attempt) => attempt.response_code)).toEqual([200]);
  });
});
