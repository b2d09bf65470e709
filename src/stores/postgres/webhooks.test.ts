/**
 * Claims of the PostgreSQL webhook outbox between live instances: instances claiming at
 * once never take the same delivery, a delivery held by a live instance is nobody
 * else's, and one held by an instance whose registration ended is taken by another
 * (whose late settlement of it is then refused).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredDelivery } from '../../core/schemas/index.js';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import { truncateAll } from '../../../test/support/database.js';
import { registerInstance } from './instances.js';
import { createPgWebhookStore } from './webhooks.js';

const pg = usePostgres();
const LEASE_MS = 600_000;

async function instance() {
  const db = pg.open();
  const id = randomUUID();
  const lease = await registerInstance(db, { id, leaseMs: LEASE_MS });
  return { lease, store: createPgWebhookStore(db, { instanceId: id, leaseMs: LEASE_MS }) };
}

const due = new Date(Date.UTC(2030, 0, 1));
const delivery = (webhookId: string, n: number): StoredDelivery => ({
  id: `msg_${n}`,
  webhook_id: webhookId,
  event_type: 'run.completed',
  status: 'pending',
  response_code: null,
  attempts: [],
  created_at: due.toISOString(),
  next_attempt_at: due.toISOString(),
  body: `{"n":${n}}`,
});

describe('PostgreSQL webhook claims between instances', () => {
  const setUp = async (count: number) => {
    await truncateAll(pg.url());
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const webhookId = randomUUID();
    await a.store.add({ id: webhookId, structure_id: randomUUID(), url: 'https://example.com/h', events: ['run.completed'], description: '', created_at: due.toISOString(), secret: 'whsec_x' });
    await a.store.enqueue(Array.from({ length: count }, (_, n) => delivery(webhookId, n)));
    return { a, b, c, webhookId };
  };

  it('never hands one delivery to two instances claiming at once', async () => {
    const { a, b, c } = await setUp(90);
    const drain = async (store: typeof a.store) => {
      const mine: string[] = [];
      for (;;) {
        const claimed = await store.claim(new Date(due.getTime() + 1000), 4);
        if (claimed.length === 0) return mine;
        mine.push(...claimed.map((item) => item.delivery.id));
      }
    };
    const taken = await Promise.all([drain(a.store), drain(b.store), drain(c.store)]);
    const all = taken.flat();
    expect(all).toHaveLength(90);
    expect(new Set(all).size).toBe(90);
    await Promise.all([a, b, c].map((one) => one.lease.close()));
  });

  it('leaves a live instance its claim, and frees the claim of one that stopped', async () => {
    const { a, b, c, webhookId } = await setUp(1);
    const at = new Date(due.getTime() + 1000);
    expect(await a.store.claim(at, 10)).toHaveLength(1);
    expect(await b.store.claim(at, 10)).toEqual([]);
    expect(await b.store.nextDue()).toBeNull();
    await a.lease.close();
    expect(await b.store.nextDue()).toEqual(due);
    const [taken] = await b.store.claim(at, 10);
    expect(taken?.delivery.id).toBe('msg_0');
    // The stopped instance's late answer is not recorded over the new claim.
    const attempt = { at: at.toISOString(), response_code: 200, error: null, duration_ms: 1 };
    expect(await a.store.settle(webhookId, 'msg_0', { attempt, status: 'delivered', next_attempt_at: null })).toBeUndefined();
    expect(await b.store.settle(webhookId, 'msg_0', { attempt, status: 'delivered', next_attempt_at: null })).toMatchObject({ status: 'delivered', attempts: [attempt] });
    await Promise.all([b, c].map((one) => one.lease.close()));
  });
});
