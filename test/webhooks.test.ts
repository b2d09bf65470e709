/**
 * Completion webhooks end to end: registration (owner only, secret shown once), a real
 * local HTTP receiver that checks every signature with the Standard Webhooks reference
 * library, run.completed / run.failed / node.state_changed / draft.created deliveries,
 * a retry after a 500 with the same delivery id, the deliveries log, and a delivery
 * that failed before a restart made by the next process from the durable outbox.
 * Every request goes to a listening server; retries run on an injected schedule; the test
 * waits on the receiver's requests.
 */
import { rm } from 'node:fs/promises';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../src/core/schemas/index.js';
import type { Clock } from '../src/core/util/index.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { notifier } from './helpers/notifier.js';
import { expectProblem, fetchAnswer } from './helpers/problem.js';
import { startReceiver, verifyDelivery as verify, type WebhookReceiver } from './helpers/webhook-receiver.js';

/** Follows the deliveries log of an instance through its change events. */
function watchDeliveries(t: TestInstance) {
  const latest = new Map<string, Delivery>();
  const changes = notifier();
  const stop = t.app.webhooks.onDelivery((delivery) => {
    latest.set(delivery.id, delivery);
    changes.notify();
  });
  return {
    stop,
    /** Resolves once the delivery has `status` (and, when given, that many attempts). */
    until: (id: string, status: string, attempts?: number) =>
      changes.until(() => {
        const delivery = latest.get(id);
        return delivery?.status === status && (attempts === undefined || delivery.attempts.length === attempts);
      }, `delivery ${id} to be ${status}`),
  };
}

const runtime = createScriptedRuntime((turn) =>
  turn.message.includes('fail')
    ? [{ type: 'error', content: { message: 'the tool broke' } }]
    : turn.message.includes('learn')
      ? [
          { type: 'skill_learned', content: { slug: 'file-expenses', name: 'File expenses', body: '## [a] Step 1: File\nFile them.\n' } },
          { type: 'complete', content: { summary: 'filed', artifacts: [] } },
        ]
      : [
          { type: 'text', content: 'working on it' },
          { type: 'complete', content: { summary: `done: ${turn.message}`, artifacts: [] } },
        ],
);

describe('completion webhooks', () => {
  let receiver: WebhookReceiver;
  let t: TestInstance;
  let owner: { token: string; id: string };
  let operator: { token: string; id: string };
  let structureId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startInstance({ listen: true, deps: { runtime: () => runtime, webhookRetrySchedule: [0, 0, 0] } });
    owner = await t.createUser('owner@example.com');
    operator = await t.createUser('operator@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team')).id;
    await t.app.members.set(structureId, operator.id, 'operator');
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const register = (events: string[], token = owner.token, url = receiver.url) =>
    fetchAnswer(t.url, { method: 'POST', url: `/api/org/structures/${structureId}/webhooks`, headers: t.auth(token), payload: { url, events } });
  const chat = async (message: string) => {
    const response = await fetchAnswer(t.url, {
      method: 'POST',
      url: '/api/org/chat/message/sync',
      headers: t.auth(owner.token),
      payload: { structure_id: structureId, role_id: 'exec-cfo', message },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ run_id: string }>().run_id;
  };

  it('lets owners only register, validates the URL and events, and shows the secret once', async () => {
    await expectProblem(await register(['run.completed'], operator.token), 403, 'forbidden');
    await expectProblem(await register(['run.completed'], owner.token, 'ftp://example.com/x'), 400, 'invalid_request');
    await expectProblem(await register(['run.exploded']), 400, 'invalid_request');
    await expectProblem(await register([]), 400, 'invalid_request');
    const created = await register(['run.completed']);
    expect(created.statusCode, created.body).toBe(201);
    const hook = created.json<{ id: string; secret: string; events: string[] }>();
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const listed = await fetchAnswer(t.url, { method: 'GET', url: `/api/org/structures/${structureId}/webhooks`, headers: t.auth(owner.token) });
    expect(listed.json<{ webhooks: Record<string, unknown>[] }>().webhooks).toEqual([expect.objectContaining({ id: hook.id, url: receiver.url, events: ['run.completed'] })]);
    expect(listed.body).not.toContain(hook.secret);
    const removed = await fetchAnswer(t.url, { method: 'DELETE', url: `/api/org/structures/${structureId}/webhooks/${hook.id}`, headers: t.auth(owner.token) });
    expect(removed.statusCode).toBe(204);
    const again = await fetchAnswer(t.url, { method: 'DELETE', url: `/api/org/structures/${structureId}/webhooks/${hook.id}`, headers: t.auth(owner.token) });
    await expectProblem(again, 404, 'not_found');
  });

  it('delivers signed run, node-state and draft events that the reference library verifies', async () => {
    const created = (await register(['run.completed', 'run.failed', 'node.state_changed', 'draft.created'])).json<{ id: string; secret: string }>();
    const before = receiver.received.length;
    const completedRun = await chat('report the numbers');
    await receiver.until(() => receiver.received.some((r) => r.json.type === 'run.completed' && r.json.data.run_id === completedRun), 'run.completed delivery');
    const failedRun = await chat('this will fail');
    await receiver.until(() => receiver.received.some((r) => r.json.type === 'run.failed' && r.json.data.run_id === failedRun), 'run.failed delivery');
    await chat('learn this one');
    await receiver.until(() => receiver.received.some((r) => r.json.type === 'draft.created'), 'draft.created delivery');
    await receiver.until(
      () => receiver.received.filter((r) => r.json.type === 'node.state_changed' && r.json.data.state === 'idle').length >= 3,
      'three idle node states',
    );
    const mine = receiver.received.slice(before);
    // Every delivery was answered 200 at once: each was sent exactly once.
    expect(new Set(mine.map((r) => r.headers['webhook-id'])).size).toBe(mine.length);
    for (const delivery of mine) {
      expect(verify(created.secret, delivery)).toEqual(delivery.json);
      expect(delivery.headers['webhook-id']).toBe(delivery.json.id);
    }
    // A wrong secret or a changed body fails verification.
    const sample = mine[0]!;
    expect(() => verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, sample)).toThrow();
    expect(() => verify(created.secret, { ...sample, body: sample.body.replace('"', ' "') })).toThrow();

    const completed = mine.find((r) => r.json.type === 'run.completed' && r.json.data.run_id === completedRun)!;
    expect(completed.json.data).toMatchObject({ structure_id: structureId, role_id: 'exec-cfo', summary: 'done: report the numbers', artifacts: [] });
    const failed = mine.find((r) => r.json.type === 'run.failed')!;
    expect(failed.json.data).toMatchObject({ run_id: failedRun, message: 'the tool broke', cancelled: false });
    expect(mine.find((r) => r.json.type === 'draft.created')!.json.data).toMatchObject({ slug: 'file-expenses', name: 'File expenses' });
    // Deliveries are not ordered (each is sent as soon as it is claimed); the event's timestamp orders them.
    const states = mine
      .filter((r) => r.json.type === 'node.state_changed' && r.json.data.node_id === completed.json.data.node_id)
      .sort((x, y) => x.json.timestamp.localeCompare(y.json.timestamp))
      .map((r) => r.json.data.state);
    expect(states.filter((state) => state === 'working')).toHaveLength(3);
    expect(states.filter((state) => state === 'idle')).toHaveLength(3);
    expect(states[0]).toBe('working');
    await fetchAnswer(t.url, { method: 'DELETE', url: `/api/org/structures/${structureId}/webhooks/${created.id}`, headers: t.auth(owner.token) });
  });

  it('retries after a 500 with the same delivery id, and logs both attempts', async () => {
    const created = (await register(['run.completed'])).json<{ id: string; secret: string }>();
    const statuses = watchDeliveries(t);
    receiver.plan.push(500);
    const runId = await chat('retry me');
    const ofRun = () => receiver.received.filter((r) => r.json.type === 'run.completed' && r.json.data.run_id === runId);
    await receiver.until(() => ofRun().length === 2, 'a retry after the 500');
    const [first, second] = ofRun();
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
    expect(verify(created.secret, second!)).toEqual(second!.json);

    const log = async () =>
      (await fetchAnswer(t.url, { method: 'GET', url: `/api/org/structures/${structureId}/webhooks/${created.id}/deliveries`, headers: t.auth(owner.token) })).json<{
        deliveries: { id: string; status: string; response_code: number | null; attempts: { response_code: number | null }[] }[];
      }>().deliveries;
    await statuses.until(first!.json.id, 'delivered');
    statuses.stop();
    const entries = await log();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: first!.json.id, status: 'delivered', response_code: 200 });
    expect(entries[0]!.attempts.map((attempt) => attempt.response_code)).toEqual([500, 200]);
    const forbidden = await fetchAnswer(t.url, { method: 'GET', url: `/api/org/structures/${structureId}/webhooks/${created.id}/deliveries`, headers: t.auth(operator.token) });
    await expectProblem(forbidden, 403, 'forbidden');
    await fetchAnswer(t.url, { method: 'DELETE', url: `/api/org/structures/${structureId}/webhooks/${created.id}`, headers: t.auth(owner.token) });
  });
});

describe('the webhook outbox across a restart', () => {
  it('keeps a failed delivery and lets the next process deliver it', async () => {
    const receiver = await startReceiver();
    // The first process retries only after an hour: it stops before that.
    const first = await startInstance({ listen: true, deps: { runtime: () => runtime, webhookRetrySchedule: [3_600_000] } });
    const home = first.home;
    let second: TestInstance | undefined;
    try {
      const owner = await first.createUser('owner@example.com');
      const structureId = (await first.createStructure(owner.token, 'exec-team')).id;
      const hook = (
        await fetchAnswer(first.url, { method: 'POST', url: `/api/org/structures/${structureId}/webhooks`, headers: first.auth(owner.token), payload: { url: receiver.url, events: ['run.completed'] } })
      ).json<{ id: string; secret: string }>();
      const statuses = watchDeliveries(first);
      receiver.plan.push(503);
      const sync = await fetchAnswer(first.url, {
        method: 'POST',
        url: '/api/org/chat/message/sync',
        headers: first.auth(owner.token),
        payload: { structure_id: structureId, role_id: 'exec-cfo', message: 'before the restart' },
      });
      const runId = sync.json<{ run_id: string }>().run_id;
      await receiver.until(() => receiver.received.length === 1, 'the first attempt');
      await statuses.until(receiver.received[0]!.json.id, 'pending', 1);
      statuses.stop();
      await first.server.close();
      await first.app.close();

      // The next process starts two hours later (by its clock): the retry is due at once.
      const later: Clock = { now: () => new Date(Date.now() + 2 * 3_600_000) };
      second = await startInstance({ home, listen: true, deps: { runtime: () => runtime, clock: later } });
      await receiver.until(() => receiver.received.length === 2, 'the delivery by the next process');
      const [before, after] = receiver.received;
      expect(after!.json).toEqual(before!.json);
      expect(after!.json.data.run_id).toBe(runId);
      expect(after!.headers['webhook-id']).toBe(before!.headers['webhook-id']);
      // Signed at the next process's (advanced) time: check the signature for that timestamp.
      const timestamp = Number(after!.headers['webhook-timestamp']);
      expect(after!.headers['webhook-signature']).toBe(new StandardWebhook(hook.secret).sign(String(after!.headers['webhook-id']), new Date(timestamp * 1000), after!.body));
    } finally {
      await second?.close();
      await receiver.close();
      await rm(home, { recursive: true, force: true });
    }
  });
});
