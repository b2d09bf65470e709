/** Schemas of the inbound webhooks and of whoami (API.md §7, §3). */
import { Type } from 'typebox';
import { RoleId, Timestamp, Uuid } from './common.js';

/** The signature header of the inbound webhooks. */
export const SignatureHeaders = Type.Object({
  'x-org-signature': Type.Optional(Type.String({ description: 'sha256=<hex HMAC-SHA256 of the raw body keyed with ORG_INBOUND_SECRET>' })),
});

/** Body of POST /inbound/message. */
export const InboundMessageBody = Type.Object({
  structure_id: Uuid,
  role_id: RoleId,
  text: Type.String({ minLength: 1, maxLength: 100_000 }),
  sender: Type.String({ minLength: 1, maxLength: 320, description: 'who sent it on the channel (noted as origin `message:<sender>` in the history)' }),
});

/** 202 answer of both webhooks. */
export const AcceptedRun = Type.Object({ run_id: Uuid });

/** GET /whoami. */
export const WhoAmISchema = Type.Object({
  kind: Type.Union([Type.Literal('admin'), Type.Literal('user'), Type.Literal('mcp')]),
  user: Type.Optional(Type.Object({ id: Uuid, email: Type.String(), created_at: Timestamp })),
  key: Type.Optional(Type.Object({ id: Uuid, structure_id: Uuid, role_id: RoleId, label: Type.String() })),
});
