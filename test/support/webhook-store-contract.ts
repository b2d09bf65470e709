/**
 * The contract of a `WebhookStore`, run against every backend (the filesystem home,
 * PostgreSQL): registrations per structure with their secrets, removal with the log,
 * deliveries newest first with filters, claims (a claimed delivery is nobody else's until
 * settled; a settled retry comes due again; a stopped process's claims are free after a
 * restart), idempotent enqueue, and the bounded log of finished deliveries.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredDelivery } from '../../src/core/schemas/index.js';
import { KEEP_FINISHED, type StoredWebhook, type WebhookStore } from '../../src/core/webhooks/store.js';
import { fixtures, type Fixture } from './fixture.js';

const T0 = Date.UTC(2030, 0, 1);
const at = (seconds: number) => new Date(T0 + seconds * 1000);

export function describeWebhookStore(name: string, make: () => Promise<Fixture<WebhookStore>>): void {
  describe(`WebhookStore contract: ${name}`, () => {
    const fresh = fixtures(make);
    const [a, b] = [randomUUID(), randomUUID()];

    const webhook = (structureId: string, url = 'https://example.com/hooks'): StoredWebhook => ({
      id: randomUUID(),
      structure_id: structureId,
      url,
      events: ['run.completed'],
      description: '',
      created_at: at(0).toISOString(),
      secret: `whsec_${randomUUID()}`,
    });
    let n = 0;
    const delivery = (webhookId: string, overrides: Partial<StoredDelivery> = {}): StoredDelivery => {
      n += 1;
      return {
        id: `msg_${n}_${randomUUID().slice(0, 8)}`,
        webhook_id: webhookId,
        event_type: 'run.completed',
        status: 'pending',
        response_code: null,
        attempts: [],
        created_at: at(n).toISOString(),
        next_attempt_at: at(0).toISOString(),
        body: `{"n":${n}}`,
        ...overrides,
      };
    };
    const attempt = (code: number | null) => ({ at: at(1).toISOString(), response_code: code, error: code === null ? 'ECONNREFUSED' : null, duration_ms: 3 });

    it('keeps registrations per structure with their secrets, oldest first, after a reopen', async () => {
      const fixture = await fresh();
      const [first, second, other] = [webhook(a, 'https://one.example/h'), webhook(a, 'https://two.example/h'), webhook(b)];
      for (const hook of [first, second, other]) await fixture.store.add(hook);
      const store = await fixture.reopen();
      expect(await store.list(a)).toEqual([first, second]);
      expect(await store.list(b)).toEqual([other]);
      expect((await store.list()).map((hook) => hook.id)).toEqual([first.id, second.id, other.id]);
      expect(await store.get(second.id)).toEqual(second);
      expect(await store.get(randomUUID())).toBeUndefined();
    });

    it('removes a webhook only within its structure, with its deliveries', async () => {
      const { store, reopen } = await fresh();
      const hook = webhook(a);
      await store.add(hook);
      await store.enqueue([delivery(hook.id)]);
      expect(await store.remove(b, hook.id)).toBe(false);
      expect(await store.get(hook.id)).toEqual(hook);
      expect(await store.remove(a, hook.id)).toBe(true);
      expect(await store.remove(a, hook.id)).toBe(false);
      const reopened = await reopen();
      expect(await reopened.list(a)).toEqual([]);
      expect(await reopened.deliveries(hook.id, { limit: 10 })).toEqual([]);
      expect(await reopened.claim(at(10), 10)).toEqual([]);
      expect(await reopened.nextDue()).toBeNull();
    });

    it('lists deliveries newest first, by status and limit; an id already stored is left as it is', async () => {
      const { store, reopen } = await fresh();
      const hook = webhook(a);
      await store.add(hook);
      const [d1, d2] = [delivery(hook.id), delivery(hook.id, { status: 'failed', next_attempt_at: null, response_code: 500, attempts: [attempt(500)] })];
      await store.enqueue([d1, d2]);
      const d3 = delivery(hook.id);
      await store.enqueue([d3, { ...d1, body: 'changed' }]);
      const reopened = await reopen();
      expect(await reopened.deliveries(hook.id, { limit: 10 })).toEqual([d3, d2, d1]);
      expect(await reopened.deliveries(hook.id, { limit: 2 })).toEqual([d3, d2]);
      expect(await reopened.deliveries(hook.id, { limit: 10, status: 'failed' })).toEqual([d2]);
      // Deliveries of an unknown webhook are not kept.
      const stray = delivery(randomUUID());
      await reopened.enqueue([stray]);
      expect(await reopened.deliveries(stray.webhook_id, { limit: 10 })).toEqual([]);
    });

    it('claims what is due once, settles it, and brings a retry due at its time', async () => {
      const { store } = await fresh();
      const hook = webhook(a);
      await store.add(hook);
      const now = delivery(hook.id, { next_attempt_at: at(0).toISOString() });
      const later = delivery(hook.id, { next_attempt_at: at(60).toISOString() });
      await store.enqueue([now, later]);
      expect(await store.nextDue()).toEqual(at(0));

      const claimed = await store.claim(at(1), 10);
      expect(claimed).toEqual([{ delivery: now, webhook: hook }]);
      // Held: nobody claims it again, and it is not what the next wake-up waits for.
      expect(await store.claim(at(1), 10)).toEqual([]);
      expect(await store.nextDue()).toEqual(at(60));

      const retried = await store.settle(hook.id, now.id, { attempt: attempt(500), status: 'pending', next_attempt_at: at(30).toISOString() });
      expect(retried).toEqual({ ...now, attempts: [attempt(500)], response_code: 500, next_attempt_at: at(30).toISOString() });
      // Settling again (no longer held) changes nothing.
      expect(await store.settle(hook.id, now.id, { attempt: attempt(200), status: 'delivered', next_attempt_at: null })).toBeUndefined();
      expect(await store.nextDue()).toEqual(at(30));
      expect(await store.claim(at(29), 10)).toEqual([]);
      const [again] = await store.claim(at(30), 10);
      expect(again?.delivery.attempts).toEqual([attempt(500)]);
      const delivered = await store.settle(hook.id, now.id, { attempt: attempt(200), status: 'delivered', next_attempt_at: null });
      expect(delivered).toMatchObject({ status: 'delivered', response_code: 200, next_attempt_at: null });
      expect(delivered?.attempts.map((entry) => entry.response_code)).toEqual([500, 200]);

      // The most overdue first, within the limit.
      expect((await store.claim(at(3600), 1)).map((item) => item.delivery.id)).toEqual([later.id]);
      expect(await store.claim(at(3600), 10)).toEqual([]);
      expect(await store.nextDue()).toBeNull();
      expect((await store.deliveries(hook.id, { limit: 10 })).map((entry) => [entry.id, entry.status])).toEqual([
        [later.id, 'pending'],
        [now.id, 'delivered'],
      ]);
    });

    it('frees the claims of a stopped process: after a restart they are due again', async () => {
      const { store, reopen } = await fresh();
      const hook = webhook(a);
      await store.add(hook);
      const owed = delivery(hook.id);
      await store.enqueue([owed]);
      expect(await store.claim(at(1), 10)).toHaveLength(1);
      const next = await reopen();
      expect(await next.nextDue()).toEqual(at(0));
      const [claimed] = await next.claim(at(1), 10);
      expect(claimed?.delivery).toEqual(owed);
      expect(await next.settle(hook.id, owed.id, { attempt: attempt(204), status: 'delivered', next_attempt_at: null })).toMatchObject({ status: 'delivered' });
    });

    it(`keeps every pending delivery and the newest ${KEEP_FINISHED} finished ones`, async () => {
      const { store } = await fresh();
      const hook = webhook(a);
      await store.add(hook);
      const pending = delivery(hook.id);
      const finished = Array.from({ length: KEEP_FINISHED + 5 }, () => delivery(hook.id, { status: 'delivered', next_attempt_at: null, response_code: 200 }));
      await store.enqueue([pending, ...finished]);
      const kept = await store.deliveries(hook.id, { limit: 500 });
      expect(kept).toHaveLength(KEEP_FINISHED + 1);
      expect(kept[0]!.id).toBe(finished.at(-1)!.id);
      expect(kept.at(-1)!.id).toBe(pending.id);
      expect(kept.some((entry) => entry.id === finished[4]!.id)).toBe(false);
      expect(kept.some((entry) => entry.id === finished[5]!.id)).toBe(true);
    });
  });
}
