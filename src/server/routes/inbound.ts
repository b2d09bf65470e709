/**
 * The inbound webhooks (API.md §7): `POST /api/org/inbound/email` (a raw RFC 5322
 * message, `Content-Type: message/rfc822`) and `POST /api/org/inbound/message`
 * (`{structure_id, role_id, text, sender}`). No bearer: each request is signed in the
 * Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature` over
 * `<id>.<timestamp>.<raw body>`, or `X-Org-Signature: sha256=<hex>` of the same) keyed
 * with ORG_INBOUND_SECRET, checked in constant time before the body is validated; a
 * timestamp more than 5 minutes away or an id already received is refused (401). Without
 * a configured secret both answer 503.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { OrgError, unauthorized } from '../../core/errors.js';
import { verifyInbound, type SignedHeaders } from '../../core/inbound/index.js';
import { InboundMessageSchema, RunRefSchema } from '../../core/schemas/index.js';
import { problems } from '../schemas/common.js';
import { nodeScopeOf } from '../scope.js';

/** The signature headers of both webhooks (checked by the hook below, so optional to the validator). */
const SignatureHeaders = Type.Object({
  'webhook-id': Type.Optional(Type.String({ description: 'a unique id of the message (Standard Webhooks); an id is accepted once' })),
  'webhook-timestamp': Type.Optional(Type.String({ description: 'when it was signed, in seconds since the epoch; refused more than 5 minutes from the server’s clock' })),
  'webhook-signature': Type.Optional(Type.String({ description: 'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>" keyed with ORG_INBOUND_SECRET>' })),
  'x-org-signature': Type.Optional(Type.String({ description: 'or sha256=<hex of the same HMAC>, with webhook-id and webhook-timestamp' })),
});

/** The raw e-mail: documented for clients, parsed by the route (no JSON Schema validation of bytes). */
const RawEmail = {
  required: true,
  description: 'the raw RFC 5322 message, as received by the mail exchanger',
  content: { 'message/rfc822': { schema: Type.String({ contentMediaType: 'message/rfc822' }) } },
};

/** The inbound e-mail and messaging-channel webhooks. */
export const inboundRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'inbound' | 'config' | 'clock'> }> = async (server, { app }) => {
  const tags = ['inbound'];
  // The exact bytes received, for the signature (parsers of this plugin only).
  const rawBodies = new WeakMap<object, Buffer>();

  server.addContentTypeParser('message/rfc822', { parseAs: 'buffer' }, (request, body, done) => {
    rawBodies.set(request, body as Buffer);
    done(null, body);
  });
  const parseJson = server.getDefaultJsonParser('error', 'error');
  server.removeContentTypeParser('application/json');
  server.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const buffer = body as Buffer;
    rawBodies.set(request, buffer);
    const text = buffer.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    void parseJson(request, text, done);
  });

  server.addHook('onRequest', async () => {
    if (!app.config.inboundSecret) throw new OrgError('unavailable', 'the inbound channels are disabled: set ORG_INBOUND_SECRET to enable them');
  });
  server.addHook('preValidation', async (request) => {
    const headers: SignedHeaders = {};
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-org-signature'] as const) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const now = app.clock.now().getTime();
    const check = verifyInbound(app.config.inboundSecret ?? '', headers, rawBodies.get(request) ?? Buffer.alloc(0), Math.floor(now / 1000));
    if (!check.ok) throw unauthorized(check.message);
    // Signed and fresh: an id already taken is a replay.
    if (!(await app.inbound.claimMessageId(check.id, now))) throw unauthorized(`webhook-id ${JSON.stringify(check.id.slice(0, 80))} was already received: each message is accepted once`);
  });

  server.post(
    '/api/org/inbound/email',
    {
      config: { access: { kind: 'signed' }, audit: false },
      schema: {
        operationId: 'receiveEmail',
        summary: 'Inbound e-mail: a raw RFC 5322 message (message/rfc822) to <role_id>.<structure_id>@<ORG_INBOUND_DOMAIN>, from an operator or owner of the structure; the reply is mailed to the sender',
        description:
          'Signed by the relay (webhook-id, webhook-timestamp, webhook-signature). Only an operator or owner of the structure starts work: the From address is the sender, authenticated by the relay (with ORG_INBOUND_AUTHSERV_ID, its Authentication-Results must record a DMARC, DKIM or SPF pass for the From domain); anyone else gets 403 and nothing is stored or mailed. Routed by Delivered-To, X-Original-To, To and Cc; the new text of the body (quoted history removed) becomes the message, ' +
          'attachments are staged on the node’s shelf. When the turn ends, a reply threaded with In-Reply-To/References carries the summary and the artifacts.',
        tags,
        headers: SignatureHeaders,
        body: RawEmail,
        response: { 202: RunRefSchema, ...problems(400, 401, 403, 404, 413, 415, 429, 503, 507) },
      },
    },
    async (request, reply) => {
      const body: unknown = request.body;
      if (!Buffer.isBuffer(body)) throw new OrgError('unsupported_media_type', 'send the raw e-mail with Content-Type: message/rfc822');
      const accepted = await app.inbound.acceptEmail(body);
      return reply.code(202).send({ run_id: accepted.runId });
    },
  );

  server.post(
    '/api/org/inbound/message',
    {
      config: { access: { kind: 'signed', from: 'body', node: 'body' }, audit: false },
      schema: {
        operationId: 'receiveChannelMessage',
        summary: 'Inbound messaging-channel message to a node; the turn shows in its history with origin message:<sender>',
        tags,
        headers: SignatureHeaders,
        body: InboundMessageSchema,
        response: { 202: RunRefSchema, ...problems(400, 401, 404, 413, 415, 429, 503, 507) },
      },
    },
    async (request, reply) => {
      const { structureId, roleId } = nodeScopeOf(request);
      const { text, sender } = request.body;
      const accepted = await app.inbound.acceptMessage({ structureId, roleId, text, sender });
      return reply.code(202).send({ run_id: accepted.runId });
    },
  );
};
