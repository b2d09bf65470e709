/**
 * The inbound webhooks (API.md §7): `POST /api/org/inbound/email` (a raw RFC 5322
 * message, `Content-Type: message/rfc822`) and `POST /api/org/inbound/message`
 * (`{structure_id, role_id, text, sender}`). No bearer: each request carries
 * `X-Org-Signature: sha256=<hex HMAC-SHA256 of the raw body>` keyed with
 * ORG_INBOUND_SECRET, checked in constant time before the body is validated. Without a
 * configured secret both answer 503.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { App } from '../../app.js';
import { OrgError, unauthorized } from '../../core/errors.js';
import { SIGNATURE_HEADER, verifySignature } from '../../core/inbound/index.js';
import { InboundMessageSchema, RunRefSchema } from '../../core/schemas/index.js';
import { problems } from '../schemas/common.js';
import { nodeScopeOf } from '../scope.js';

/** The signature header of both webhooks (checked by the hook below, so optional to the validator). */
const SignatureHeaders = Type.Object({
  'x-org-signature': Type.Optional(Type.String({ description: 'sha256=<hex HMAC-SHA256 of the raw body keyed with ORG_INBOUND_SECRET>' })),
});

/** The raw e-mail: documented for clients, parsed by the route (no JSON Schema validation of bytes). */
const RawEmail = {
  required: true,
  description: 'the raw RFC 5322 message, as received by the mail exchanger',
  content: { 'message/rfc822': { schema: Type.String({ contentMediaType: 'message/rfc822' }) } },
};

/** The inbound e-mail and messaging-channel webhooks. */
export const inboundRoutes: FastifyPluginAsyncTypebox<{ app: Pick<App, 'inbound' | 'config'> }> = async (server, { app }) => {
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
    const header = request.headers[SIGNATURE_HEADER];
    const signature = typeof header === 'string' ? header : undefined;
    if (signature === undefined) throw unauthorized('X-Org-Signature is required: sha256=<hex HMAC-SHA256 of the raw body keyed with the inbound secret>');
    if (!verifySignature(app.config.inboundSecret ?? '', rawBodies.get(request) ?? Buffer.alloc(0), signature)) {
      throw unauthorized('X-Org-Signature does not match the body');
    }
  });

  server.post(
    '/api/org/inbound/email',
    {
      config: { access: { kind: 'signed' }, audit: false },
      schema: {
        operationId: 'receiveEmail',
        summary: 'Inbound e-mail: a raw RFC 5322 message (message/rfc822) to <role_id>.<structure_id>@<ORG_INBOUND_DOMAIN>; the reply is mailed to the sender',
        description:
          'Signed with X-Org-Signature. Routed by Delivered-To, X-Original-To, To and Cc; the new text of the body (quoted history removed) becomes the message, ' +
          'attachments are staged on the node’s shelf. When the turn ends, a reply threaded with In-Reply-To/References carries the summary and the artifacts.',
        tags,
        headers: SignatureHeaders,
        body: RawEmail,
        response: { 202: RunRefSchema, ...problems(400, 401, 404, 413, 415, 429, 503, 507) },
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
