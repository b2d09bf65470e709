/**
 * The records of completion webhooks (API.md §9): a structure's registrations, the
 * events they carry, and the log of deliveries, each declared once.
 */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-events.js';

export { WEBHOOK_EVENT_TYPES };
/** One webhook event type. */
export const WebhookEventTypeSchema = StringEnum(WEBHOOK_EVENT_TYPES);
/** One webhook event type. */
export type WebhookEventType = Static<typeof WebhookEventTypeSchema>;

/** Body of `POST …/webhooks`. */
export const WebhookCreateSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL that receives a signed POST per event' }),
    events: Type.Array(WebhookEventTypeSchema, { minItems: 1, maxItems: WEBHOOK_EVENT_TYPES.length, uniqueItems: true }),
    description: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { title: 'WebhookCreate' },
);
/** Body of a webhook registration. */
export type WebhookCreate = Static<typeof WebhookCreateSchema>;

/** A registered webhook as listed (never with its secret). */
export const WebhookSchema = Type.Object(
  {
    id: Uuid,
    structure_id: Uuid,
    url: Type.String(),
    events: Type.Array(WebhookEventTypeSchema),
    description: Type.String(),
    created_at: Timestamp,
  },
  { title: 'Webhook' },
);
/** A registered webhook. */
export type Webhook = Static<typeof WebhookSchema>;

/** A webhook as returned once, on creation: with the signing secret (`whsec_…`). */
export const CreatedWebhookSchema = Type.Object(
  {
    ...WebhookSchema.properties,
    secret: Type.String({ description: 'signing secret (whsec_ + base64 key); shown only in this answer' }),
  },
  { title: 'CreatedWebhook' },
);
/** A webhook as returned on creation. */
export type CreatedWebhook = Static<typeof CreatedWebhookSchema>;

/** State of a delivery: waiting (for its first attempt or a retry), delivered, or given up. */
export const DeliveryStatusSchema = StringEnum(['pending', 'delivered', 'failed']);
/** State of a delivery. */
export type DeliveryStatus = Static<typeof DeliveryStatusSchema>;

/** One attempt to deliver. */
export const DeliveryAttemptSchema = Type.Object({
  at: Timestamp,
  /** HTTP status the receiver answered, or null when there was no answer. */
  response_code: Nullable(Type.Integer()),
  /**
   * Why the attempt failed when there was no answer: the egress policy refused the address,
   * or one uniform "no answer" (how a connection failed is in the server log, not here:
   * the log would otherwise scan ports for whoever registers the URL).
   */
  error: Nullable(Type.String()),
  /** How long the receiver took to answer; 0 when there was no answer. */
  duration_ms: Type.Integer({ minimum: 0 }),
});
/** One attempt to deliver. */
export type DeliveryAttempt = Static<typeof DeliveryAttemptSchema>;

/** A delivery of one event to one webhook, as the deliveries log lists it. */
export const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'delivery id, sent as webhook-id: the same on every retry (for idempotency)' }),
    webhook_id: Uuid,
    event_type: WebhookEventTypeSchema,
    status: DeliveryStatusSchema,
    /** Status code of the last answer, or null. */
    response_code: Nullable(Type.Integer()),
    attempts: Type.Array(DeliveryAttemptSchema),
    created_at: Timestamp,
    next_attempt_at: Nullable(Timestamp),
  },
  { title: 'WebhookDelivery' },
);
/** A delivery. */
export type Delivery = Static<typeof DeliverySchema>;

/** A delivery as stored in the outbox: the log entry plus the exact body it sends. */
export type StoredDelivery = Delivery & { body: string };

/** Query of the deliveries log. */
export const DeliveriesQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'newest first; default 50' })),
  status: Type.Optional(DeliveryStatusSchema),
});
