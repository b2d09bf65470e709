/** Schemas of the chat routes (API.md §6). */
import { Type } from 'typebox';
import { RoleId, Timestamp, Uuid } from './common.js';

/** A chat event `{type, content, timestamp}`. */
export const ChatEventSchema = Type.Object(
  {
    type: Type.String(),
    content: Type.Unknown(),
    timestamp: Timestamp,
  },
  { description: 'A chat event; content depends on type (thought, tool_call, tool_result, text, decision, milestone, skill_learned, complete, error)' },
);

/** Body of POST /chat/message and /chat/message/sync. */
export const ChatMessageBody = Type.Object({
  structure_id: Uuid,
  role_id: RoleId,
  message: Type.String({ minLength: 1, maxLength: 100_000 }),
  attachments: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 255 }),
        content_base64: Type.String(),
        content_type: Type.Optional(Type.String({ maxLength: 255 })),
      }),
      { maxItems: 10 },
    ),
  ),
});

/** The sync response. */
export const SyncResponse = Type.Object({
  run_id: Uuid,
  events: Type.Array(ChatEventSchema),
  summary: Type.String(),
  artifacts: Type.Array(Type.String()),
});

/** A history message. */
export const HistoryMessageSchema = Type.Object({
  id: Uuid,
  run_id: Uuid,
  sender: Type.Union([Type.Literal('user'), Type.Literal('agent')]),
  text: Type.String(),
  attachments: Type.Array(Type.Object({ name: Type.String(), content_type: Type.String(), size: Type.Integer() })),
  events: Type.Array(ChatEventSchema),
  summary: Type.Union([Type.String(), Type.Null()]),
  artifacts: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('running'), Type.Literal('complete'), Type.Literal('error')]),
  created_at: Timestamp,
  completed_at: Type.Union([Timestamp, Type.Null()]),
  origin: Type.Optional(Type.String()),
});

/** Query of GET /chat/history. */
export const HistoryQuery = Type.Object({
  structure_id: Uuid,
  role_id: RoleId,
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  before: Type.Optional(Uuid),
});

/** An artifact listing entry. */
export const ArtifactSchema = Type.Object({ name: Type.String(), size: Type.Integer(), content_type: Type.String(), created_at: Timestamp });
