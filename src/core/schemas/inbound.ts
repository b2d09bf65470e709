/** The records of the inbound channels (API.md §7), each declared once. */
import { Type, type Static } from 'typebox';
import { RoleId, Uuid } from './common.js';

/** Body of `POST /inbound/message`: a messaging-channel message to a node. */
export const InboundMessageSchema = Type.Object({
  structure_id: Uuid,
  role_id: RoleId,
  text: Type.String({ minLength: 1, maxLength: 100_000 }),
  sender: Type.String({ minLength: 1, maxLength: 320, description: 'who sent it on the channel (noted as origin `message:<sender>` in the history)' }),
}, { title: 'InboundMessage' });
export type InboundMessage = Static<typeof InboundMessageSchema>;
