/**
 * Completion webhooks of a structure (owner): register a URL for event types, list,
 * remove, and read a webhook's deliveries log. The signing secret is shown only in the
 * registration's answer.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { CreatedWebhookSchema, DeliveriesQuerySchema, DeliverySchema, Uuid, WebhookCreateSchema, WebhookSchema } from '../../core/schemas/index.js';
import { NoContent, StructureParams, problems } from '../schemas/common.js';
import { scopeOf } from '../scope.js';
import { fromAnswer, fromParams } from '../audit.js';

/** Webhook routes. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'webhooks' | 'egress'> }> = async (server, { app }) => {
  const tags = ['webhooks'];
  const access = { kind: 'structure', action: 'admin_structure', from: 'params' } as const;
  const WebhookParams = Type.Object({ structure_id: Uuid, webhook_id: Uuid });

  server.post(
    '/api/org/structures/:structure_id/webhooks',
    {
      config: { access, audit: { action: 'webhook.create', target: fromAnswer('webhook', 'id') } },
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook: signed POSTs to the URL for the chosen event types (the secret is shown once)',
        tags,
        params: StructureParams,
        body: WebhookCreateSchema,
        response: { 201: CreatedWebhookSchema, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      await app.egress.assertAllowed(request.body.url, 'url');
      const created = await app.webhooks.create(scopeOf(request).structureId, request.body);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  server.get(
    '/api/org/structures/:structure_id/webhooks',
    {
      config: { access },
      schema: {
        operationId: 'listWebhooks',
        summary: 'The structure’s webhooks (without secrets)',
        tags,
        params: StructureParams,
        response: { 200: Type.Object({ webhooks: Type.Array(WebhookSchema) }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => ({ webhooks: await app.webhooks.list(scopeOf(request).structureId) }),
  );

  server.delete(
    '/api/org/structures/:structure_id/webhooks/:webhook_id',
    {
      config: { access, audit: { action: 'webhook.delete', target: fromParams('webhook', 'webhook_id') } },
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook; its pending deliveries are dropped',
        tags,
        params: WebhookParams,
        response: { 204: NoContent, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await app.webhooks.remove(scopeOf(request).structureId, request.params.webhook_id);
      return reply.code(204).send(null);
    },
  );

  server.get(
    '/api/org/structures/:structure_id/webhooks/:webhook_id/deliveries',
    {
      config: { access },
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'A webhook’s deliveries, newest first: status, attempts and response codes',
        tags,
        params: WebhookParams,
        querystring: DeliveriesQuerySchema,
        response: { 200: Type.Object({ deliveries: Type.Array(DeliverySchema) }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      deliveries: await app.webhooks.deliveries(scopeOf(request).structureId, request.params.webhook_id, {
        ...(request.query.limit !== undefined ? { limit: request.query.limit } : {}),
        ...(request.query.status !== undefined ? { status: request.query.status } : {}),
      }),
    }),
  );
};
