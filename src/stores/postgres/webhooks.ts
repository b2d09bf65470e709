/**
 * The PostgreSQL `WebhookStore`: tables `webhooks` and `webhook_deliveries`. Claims are
 * rows marked with this instance's id, taken with `FOR UPDATE SKIP LOCKED` in one
 * statement, so that instances claiming at once never take the same delivery; a claim
 * whose instance stopped renewing its lease is free again, so what a dead instance held
 * is sent by another.
 */
import type { ClaimedDelivery, StoredWebhook, WebhookStore } from '../../core/webhooks/store.js';
import { KEEP_FINISHED } from '../../core/webhooks/store.js';
import type { DeliveryAttempt, DeliveryStatus, StoredDelivery, Webhook, WebhookEventType } from '../../core/schemas/index.js';
import type { Db, Queryable } from './db.js';
import { aliveSql } from './instances.js';

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_type: WebhookEventType;
  status: DeliveryStatus;
  response_code: number | null;
  attempts: DeliveryAttempt[];
  created_at: string;
  next_attempt_at: Date | null;
  body: string;
}

const DELIVERY_COLUMNS = 'd.id, d.webhook_id, d.event_type, d.status, d.response_code, d.attempts, d.created_at, d.next_attempt_at, d.body';

function deliveryOf(row: DeliveryRow): StoredDelivery {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_type: row.event_type,
    status: row.status,
    response_code: row.response_code,
    attempts: row.attempts,
    created_at: row.created_at,
    next_attempt_at: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    body: row.body,
  };
}

function webhookOf(row: { record: Webhook; secret: string }): StoredWebhook {
  return { ...row.record, secret: row.secret };
}

/** A claim is free when it has no owner, or an owner other than this instance whose lease ran out. */
const free = (selfParam: string, leaseParam: string) => `(d.owner IS NULL OR (d.owner <> ${selfParam} AND NOT ${aliveSql('d.owner', leaseParam)}))`;

/** The store over `db` for one instance. */
export function createPgWebhookStore(db: Db, options: { instanceId: string; leaseMs: number }): WebhookStore {
  const prune = async (client: Queryable, webhookId: string) => {
    await client.query(
      `DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND status <> 'pending' AND pos < (
         SELECT min(pos) FROM (SELECT pos FROM webhook_deliveries WHERE webhook_id = $1 AND status <> 'pending' ORDER BY pos DESC LIMIT $2) AS kept)`,
      [webhookId, KEEP_FINISHED],
    );
  };
  return {
    async add(webhook) {
      const { secret, ...record } = webhook;
      await db.query('INSERT INTO webhooks (id, structure_id, record, secret) VALUES ($1, $2, $3, $4)', [webhook.id, webhook.structure_id, JSON.stringify(record), secret]);
    },
    async get(webhookId) {
      const { rows } = await db.query<{ record: Webhook; secret: string }>('SELECT record, secret FROM webhooks WHERE id = $1', [webhookId]);
      return rows[0] ? webhookOf(rows[0]) : undefined;
    },
    async list(structureId) {
      const { rows } =
        structureId === undefined
          ? await db.query<{ record: Webhook; secret: string }>('SELECT record, secret FROM webhooks ORDER BY pos')
          : await db.query<{ record: Webhook; secret: string }>('SELECT record, secret FROM webhooks WHERE structure_id = $1 ORDER BY pos', [structureId]);
      return rows.map(webhookOf);
    },
    async remove(structureId, webhookId) {
      const { rowCount } = await db.query('DELETE FROM webhooks WHERE id = $1 AND structure_id = $2', [webhookId, structureId]);
      return (rowCount ?? 0) > 0;
    },
    async enqueue(deliveries) {
      if (deliveries.length === 0) return;
      await db.tx(async (client) => {
        for (const delivery of deliveries) {
          // A delivery of a webhook removed meanwhile is dropped with it.
          await client.query(
            `INSERT INTO webhook_deliveries (id, webhook_id, event_type, status, response_code, attempts, created_at, next_attempt_at, body)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 WHERE EXISTS (SELECT 1 FROM webhooks WHERE id = $2)
             ON CONFLICT (id) DO NOTHING`,
            [
              delivery.id,
              delivery.webhook_id,
              delivery.event_type,
              delivery.status,
              delivery.response_code,
              JSON.stringify(delivery.attempts),
              delivery.created_at,
              delivery.next_attempt_at,
              delivery.body,
            ],
          );
        }
        for (const webhookId of new Set(deliveries.map((delivery) => delivery.webhook_id))) await prune(client, webhookId);
      });
    },
    async claim(now, limit) {
      const { rows } = await db.query<DeliveryRow & { record: Webhook; secret: string }>(
        `WITH due AS (
           SELECT d.id FROM webhook_deliveries d
           WHERE d.status = 'pending' AND d.next_attempt_at <= $2 AND ${free('$1', '$4')}
           ORDER BY d.next_attempt_at, d.pos
           LIMIT $3
           FOR UPDATE SKIP LOCKED
         ), claimed AS (
           UPDATE webhook_deliveries d SET owner = $1 FROM due WHERE d.id = due.id RETURNING d.*
         )
         SELECT ${DELIVERY_COLUMNS}, w.record, w.secret FROM claimed d JOIN webhooks w ON w.id = d.webhook_id
         ORDER BY d.next_attempt_at, d.pos`,
        [options.instanceId, now, limit, options.leaseMs],
      );
      return rows.map((row): ClaimedDelivery => ({ delivery: deliveryOf(row), webhook: webhookOf(row) }));
    },
    async settle(webhookId, deliveryId, settlement) {
      const { rows } = await db.query<DeliveryRow>(
        `UPDATE webhook_deliveries d
         SET owner = NULL, status = $4, response_code = $5, next_attempt_at = $6, attempts = d.attempts || $7::jsonb
         WHERE d.id = $2 AND d.webhook_id = $1 AND d.owner = $3
         RETURNING ${DELIVERY_COLUMNS}`,
        [
          webhookId,
          deliveryId,
          options.instanceId,
          settlement.status,
          settlement.attempt.response_code,
          settlement.next_attempt_at,
          JSON.stringify([settlement.attempt]),
        ],
      );
      return rows[0] ? deliveryOf(rows[0]) : undefined;
    },
    async nextDue() {
      const { rows } = await db.query<{ due: Date | null }>(
        `SELECT min(d.next_attempt_at) AS due FROM webhook_deliveries d WHERE d.status = 'pending' AND ${free('$1', '$2')}`,
        [options.instanceId, options.leaseMs],
      );
      return rows[0]?.due ?? null;
    },
    async deliveries(webhookId, query) {
      const values: unknown[] = [webhookId, query.limit];
      const status = query.status === undefined ? '' : ` AND d.status = $${values.push(query.status)}`;
      const { rows } = await db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d WHERE d.webhook_id = $1${status} ORDER BY d.pos DESC LIMIT $2`, values);
      return rows.map(deliveryOf);
    },
  };
}
