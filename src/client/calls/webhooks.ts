/** Calls about a structure's webhooks and their deliveries. */
import { callOn, enc, structurePath, type ClientBase } from '../base.js';
import type { RequestOptions } from '../http.js';
import type { CreatedWebhook, DeliveryStatus, Webhook, WebhookCreate, WebhookDelivery } from '../types.js';

export const webhookCalls = {
  /** Registers a webhook: the answer carries its signing secret, once. */
  createWebhook(structureId: string, input: WebhookCreate, request?: RequestOptions): Promise<CreatedWebhook> {
    return callOn(this, `${structurePath(structureId)}/webhooks`, { method: 'POST', body: input }, request);
  },

  /** The webhooks of a structure (never their secrets). */
  listWebhooks(structureId: string, request?: RequestOptions): Promise<{ webhooks: Webhook[] }> {
    return callOn(this, `${structurePath(structureId)}/webhooks`, {}, request);
  },

  /** Removes a webhook; its pending deliveries are dropped. */
  removeWebhook(structureId: string, webhookId: string, request?: RequestOptions): Promise<void> {
    return callOn(this, `${structurePath(structureId)}/webhooks/${enc(webhookId)}`, { method: 'DELETE' }, request);
  },

  /** A webhook's deliveries, newest first. */
  webhookDeliveries(structureId: string, webhookId: string, query: { limit?: number; status?: DeliveryStatus } = {}, request?: RequestOptions): Promise<{ deliveries: WebhookDelivery[] }> {
    return callOn(this, `${structurePath(structureId)}/webhooks/${enc(webhookId)}/deliveries`, { query: { limit: query.limit, status: query.status } }, request);
  },
} satisfies ThisType<ClientBase>;

/** The webhook calls of `OrgClient`. */
export type WebhookCalls = typeof webhookCalls;
