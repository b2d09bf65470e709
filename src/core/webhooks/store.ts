/**
 * Storage of completion webhooks, one implementation per backend: the registrations with
 * their secrets, and the outbox of deliveries that is also the deliveries log. A pending
 * delivery is *claimed* before an attempt (held by this process until its attempt is
 * settled), so that where several instances share a backend each attempt is made by one;
 * a claim held by an instance that died is released to the others.
 *
 * The filesystem store: `<state>/webhooks.json` (registrations, mode 0600) and
 * `<state>/webhooks/<webhook_id>.json` (its deliveries, newest first, bounded); claims are
 * held in memory, as one process owns a home.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeliveryAttempt, DeliveryStatus, StoredDelivery, Webhook } from '../schemas/webhooks.js';
import { JsonFile, mkdirSafe } from '../storage/index.js';

/** A registration as stored: the listed record and its signing secret. */
export type StoredWebhook = Webhook & { secret: string };

/** A claimed delivery and the webhook it goes to. */
export interface ClaimedDelivery {
  delivery: StoredDelivery;
  webhook: StoredWebhook;
}

/** How an attempt ended, as the delivery records it. */
export interface Settlement {
  attempt: DeliveryAttempt;
  status: DeliveryStatus;
  next_attempt_at: string | null;
}

/** Finished deliveries kept per webhook (pending ones are always kept). */
export const KEEP_FINISHED = 200;

/** Where webhooks and their deliveries are kept. */
export interface WebhookStore {
  /** Registers a webhook. */
  add(webhook: StoredWebhook): Promise<void>;
  /** One webhook, or undefined. */
  get(webhookId: string): Promise<StoredWebhook | undefined>;
  /** The webhooks of a structure (every structure when undefined), oldest first. */
  list(structureId?: string): Promise<StoredWebhook[]>;
  /** Removes a webhook of a structure with its deliveries; false when it has none by that id. */
  remove(structureId: string, webhookId: string): Promise<boolean>;
  /**
   * Stores deliveries, oldest first (each becomes the newest of its webhook's log), before
   * any attempt; ids already stored are left as they are. Finished ones past
   * {@link KEEP_FINISHED} per webhook are dropped.
   */
  enqueue(deliveries: readonly StoredDelivery[]): Promise<void>;
  /** Claims up to `limit` pending deliveries due at `now` that nobody holds, most overdue first (then oldest first). */
  claim(now: Date, limit: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt at a delivery this process holds and releases it; undefined when it is gone (or no longer held). */
  settle(webhookId: string, deliveryId: string, settlement: Settlement): Promise<StoredDelivery | undefined>;
  /** When the next pending delivery that nobody holds is due, or null. */
  nextDue(): Promise<Date | null>;
  /** A webhook's deliveries, newest first. */
  deliveries(webhookId: string, query: { limit: number; status?: DeliveryStatus }): Promise<StoredDelivery[]>;
}

/** Opens the filesystem store of a state folder (reads registrations and outboxes). */
export async function createFsWebhookStore(stateDir: string): Promise<WebhookStore> {
  const registry = new JsonFile<{ webhooks: StoredWebhook[] }>(join(stateDir, 'webhooks.json'), () => ({ webhooks: [] }));
  const dir = join(stateDir, 'webhooks');
  const outboxes = new Map<string, JsonFile<{ deliveries: StoredDelivery[] }>>();
  const held = new Set<string>();
  await registry.load();
  await mkdirSafe(dir);

  const outbox = async (webhookId: string) => {
    let file = outboxes.get(webhookId);
    if (!file) {
      file = new JsonFile(join(dir, `${webhookId}.json`), () => ({ deliveries: [] }));
      outboxes.set(webhookId, file);
      await file.load();
    }
    return file;
  };
  for (const webhook of registry.current.webhooks) await outbox(webhook.id);

  const webhookOf = (webhookId: string) => registry.current.webhooks.find((webhook) => webhook.id === webhookId);
  const due = function* () {
    for (const webhook of registry.current.webhooks) {
      // Oldest first: deliveries due at the same moment are claimed in the order of their events.
      for (const delivery of [...(outboxes.get(webhook.id)?.current.deliveries ?? [])].reverse()) {
        if (delivery.status === 'pending' && delivery.next_attempt_at !== null && !held.has(delivery.id)) yield { webhook, delivery };
      }
    }
  };

  return {
    async add(webhook) {
      await registry.update((draft) => {
        draft.webhooks.push(webhook);
      });
      await outbox(webhook.id);
    },
    async get(webhookId) {
      const webhook = webhookOf(webhookId);
      return webhook ? structuredClone(webhook) : undefined;
    },
    async list(structureId) {
      return structuredClone(registry.current.webhooks.filter((webhook) => structureId === undefined || webhook.structure_id === structureId));
    },
    async remove(structureId, webhookId) {
      if (webhookOf(webhookId)?.structure_id !== structureId) return false;
      await registry.update((draft) => {
        draft.webhooks = draft.webhooks.filter((webhook) => webhook.id !== webhookId);
      });
      for (const delivery of outboxes.get(webhookId)?.current.deliveries ?? []) held.delete(delivery.id);
      outboxes.delete(webhookId);
      await rm(join(dir, `${webhookId}.json`), { force: true });
      return true;
    },
    async enqueue(deliveries) {
      const byWebhook = new Map<string, StoredDelivery[]>();
      for (const delivery of deliveries) byWebhook.set(delivery.webhook_id, [...(byWebhook.get(delivery.webhook_id) ?? []), delivery]);
      for (const [webhookId, list] of byWebhook) {
        if (!webhookOf(webhookId)) continue;
        const file = await outbox(webhookId);
        await file.update((draft) => {
          const have = new Set(draft.deliveries.map((delivery) => delivery.id));
          for (const delivery of list) if (!have.has(delivery.id)) draft.deliveries.unshift(structuredClone(delivery));
          prune(draft.deliveries);
        });
      }
    },
    async claim(now, limit) {
      const ready = [...due()].filter(({ delivery }) => Date.parse(delivery.next_attempt_at!) <= now.getTime());
      ready.sort((a, b) => Date.parse(a.delivery.next_attempt_at!) - Date.parse(b.delivery.next_attempt_at!));
      const claimed = ready.slice(0, limit);
      for (const { delivery } of claimed) held.add(delivery.id);
      return structuredClone(claimed);
    },
    async settle(webhookId, deliveryId, settlement) {
      const file = outboxes.get(webhookId);
      if (!held.has(deliveryId) || !file) {
        held.delete(deliveryId);
        return undefined;
      }
      try {
        return await file.update((draft) => {
          const stored = draft.deliveries.find((candidate) => candidate.id === deliveryId);
          if (!stored) return undefined;
          applySettlement(stored, settlement);
          return structuredClone(stored);
        });
      } finally {
        // Released only once the outcome is current: until then a claim must not see it as due.
        held.delete(deliveryId);
      }
    },
    async nextDue() {
      let next: number | null = null;
      for (const { delivery } of due()) {
        const at = Date.parse(delivery.next_attempt_at!);
        if (next === null || at < next) next = at;
      }
      return next === null ? null : new Date(next);
    },
    async deliveries(webhookId, query) {
      const file = outboxes.get(webhookId);
      return structuredClone(
        (file?.current.deliveries ?? []).filter((delivery) => query.status === undefined || delivery.status === query.status).slice(0, query.limit),
      );
    },
  };
}

/** Writes an attempt's outcome into a delivery. */
export function applySettlement(delivery: StoredDelivery, settlement: Settlement): void {
  delivery.attempts.push(settlement.attempt);
  delivery.response_code = settlement.attempt.response_code;
  delivery.status = settlement.status;
  delivery.next_attempt_at = settlement.next_attempt_at;
}

/** Keeps every pending delivery and the newest finished ones (the list is newest first). */
function prune(deliveries: StoredDelivery[]): void {
  let finished = 0;
  for (let i = 0; i < deliveries.length; i += 1) {
    if (deliveries[i]!.status === 'pending') continue;
    finished += 1;
    if (finished > KEEP_FINISHED) {
      deliveries.splice(i, 1);
      i -= 1;
    }
  }
}
