/**
 * Chat events, history messages and the chat request (service description "Events",
 * API.md §6), each declared once. The payload of every event type is a schema here;
 * the event union, its static type and event validation are all derived from them.
 */
import { Type, type Static, type TObject, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { MEDIA_TYPE_MAX_LENGTH, MEDIA_TYPE_PATTERN } from '../util/patterns.js';
import { Nullable, RoleId, StringEnum, Timestamp, Uuid } from './common.js';
import { DelegatedBySchema } from './delegation.js';
import { EVENT_TYPES, type EventType } from './event-types.js';

export { EVENT_TYPES, type EventType } from './event-types.js';

/**
 * The `content` of each event type. Defaults fill what an external agent may leave out
 * (`args`, `result`, a decision's `body`, the `artifacts` of `complete`).
 */
export const EventContentSchemas = {
  thought: Type.String({ description: 'the agent’s internal reasoning step' }),
  tool_call: Type.Object({ tool: Type.String(), args: Type.Unknown({ default: null }) }, { description: 'the agent invoked a tool' }),
  tool_result: Type.Object({ tool: Type.String(), result: Type.Unknown({ default: null }) }, { description: 'the tool returned' }),
  text: Type.String({ description: 'streamed text the agent produced (a partial reply)' }),
  decision: Type.Object({ title: Type.String(), body: Type.String({ default: '' }) }, { description: 'a decision committed to the workspace log' }),
  milestone: Type.Object({ title: Type.String() }, { description: 'a milestone the agent flagged' }),
  skill_learned: Type.Object(
    {
      slug: Type.String(),
      name: Type.String(),
      body: Type.Optional(Type.String({ description: 'markdown body of the learned skill' })),
      summary: Type.Optional(Type.String()),
      tags: Type.Optional(Type.Array(Type.String())),
      category: Type.Optional(Type.String()),
      triggers: Type.Optional(
        Type.Array(Type.String(), { description: 'example requests the skill is for (the request a person taught); default: the message of the turn' }),
      ),
      stored: Type.Optional(Type.Boolean({ description: 'in the stream and history: whether the draft was stored, under slug' })),
      reason: Type.Optional(Type.String({ description: 'in the stream and history: why nothing was stored' })),
    },
    {
      description:
        'from a runtime: what it learned. In the stream and history: the outcome, stored: true with the slug the draft was stored under, or stored: false with the reason',
    },
  ),
  complete: Type.Object(
    { summary: Type.String(), artifacts: Type.Array(Type.String(), { default: [], description: 'names on the node’s artifact shelf' }) },
    { description: 'terminal: the turn completed' },
  ),
  error: Type.Object(
    {
      message: Type.String(),
      cancelled_by: Type.Optional(Type.String({ description: 'on a cancel ("cancelled"): who stopped the run, an e-mail or a key label' })),
    },
    { description: 'terminal: the turn failed, or was stopped' },
  ),
} as const satisfies Record<EventType, TSchema>;

/** The payload of each event type. */
export type EventPayloads = { [K in EventType]: Static<(typeof EventContentSchemas)[K]> };

/** An event as a runtime emits it (the engine stamps the timestamp). */
export type EventInput = { [K in EventType]: { type: K; content: EventPayloads[K] } }[EventType];

/** A chat event: `{type, content, timestamp}`. */
export type ChatEvent = EventInput & { timestamp: string };

/** `tool_call` → `ToolCallEvent`: the name of one event type's schema in the OpenAPI document. */
function titleOf(type: EventType): string {
  return `${type.replace(/(^|_)([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase())}Event`;
}

/** The schema of one stamped event type. */
function eventSchema(type: EventType): TObject {
  return Type.Object({ type: Type.Literal(type), content: EventContentSchemas[type], timestamp: Timestamp }, { title: titleOf(type) });
}

/**
 * A chat event, one branch per type (`type` tells which). Response serialisation writes
 * this node with `JSON.stringify` rather than trying each branch (see the server's
 * serializer compiler); validation of untrusted events goes branch by branch
 * (`parseEvent` in core/chat).
 */
export const ChatEventSchema = Type.Unsafe<ChatEvent>(
  Type.Union(EVENT_TYPES.map(eventSchema), {
    title: 'ChatEvent',
    description: 'A chat event; the type decides the content: thought and text carry a string, the others an object',
  }),
);

/**
 * True when `value` is a chat event as servers send it: stamped, of a known type, with
 * the content that type declares. Clients check every frame they read with it. It walks
 * the schema instead of compiling it, so it also runs in a page whose
 * Content-Security-Policy forbids `eval`.
 */
export function isChatEvent(value: unknown): value is ChatEvent {
  return Value.Check(ChatEventSchema, value);
}

/** Status of a run and of its agent history message. */
export const RunStatusSchema = StringEnum(['running', 'complete', 'error']);
export type RunStatus = Static<typeof RunStatusSchema>;

/** An attachment as recorded in history. */
export const AttachmentInfoSchema = Type.Object({ name: Type.String(), content_type: Type.String(), size: Type.Integer() }, { title: 'AttachmentInfo' });
export type AttachmentInfo = Static<typeof AttachmentInfoSchema>;

/** Who can write a user-side message: the kinds of {@link MessageAuthorSchema}. */
export const AUTHOR_KINDS = ['user', 'admin', 'node_key', 'email', 'channel', 'node'] as const;

/**
 * Who wrote a user-side message, taken from the one resolved principal of the request
 * (never from ids in the request): a user (`id` the user id, `label` the e-mail), the
 * instance administrator, an MCP node key (`id` the key id, `label` its label), an
 * inbound e-mail or messaging-channel sender (`id` and `label` the address or sender
 * name), or a node that delegated the task (`id` its role id, `label` its label).
 */
export const MessageAuthorSchema = Type.Object(
  {
    kind: StringEnum(AUTHOR_KINDS),
    id: Type.Optional(Type.String({ maxLength: 320 })),
    label: Type.String({ maxLength: 320 }),
  },
  { title: 'MessageAuthor' },
);
export type MessageAuthor = Static<typeof MessageAuthorSchema>;

/** A history message: the user's request, or the agent's turn with its events so far. */
export const HistoryMessageSchema = Type.Object({
  id: Uuid,
  run_id: Uuid,
  sender: StringEnum(['user', 'agent']),
  text: Type.String(),
  attachments: Type.Array(AttachmentInfoSchema),
  events: Type.Array(ChatEventSchema, { description: 'on agent messages: every event of the turn so far' }),
  summary: Nullable(Type.String()),
  artifacts: Type.Array(Type.String()),
  status: RunStatusSchema,
  created_at: Timestamp,
  completed_at: Nullable(Timestamp),
  origin: Type.Optional(Type.String({ description: 'where a user message came from when not the API itself, e.g. email:alice@example.com, or delegation:<role_id> for a delegated turn' })),
  delegated_by: Type.Optional(DelegatedBySchema),
  author: Type.Optional(MessageAuthorSchema),
}, { title: 'HistoryMessage' });
export type HistoryMessage = Static<typeof HistoryMessageSchema>;

/** A file sent with a chat message. */
export const ChatAttachmentSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255, description: 'file name (reduced to a safe base name)' }),
  content_base64: Type.String({ description: 'base64 of the file, at most 10 MiB decoded' }),
  content_type: Type.Optional(Type.String({ maxLength: MEDIA_TYPE_MAX_LENGTH, pattern: MEDIA_TYPE_PATTERN, description: 'media type (RFC 9110), e.g. text/csv; default application/octet-stream' })),
}, { title: 'ChatAttachment' });
export type ChatAttachment = Static<typeof ChatAttachmentSchema>;

/** Body of `POST /chat/message` and `/chat/message/sync`. */
export const ChatMessageSchema = Type.Object({
  structure_id: Uuid,
  role_id: RoleId,
  message: Type.String({ minLength: 1, maxLength: 100_000 }),
  attachments: Type.Optional(Type.Array(ChatAttachmentSchema, { maxItems: 10 })),
}, { title: 'ChatMessage' });
export type ChatMessage = Static<typeof ChatMessageSchema>;

/** Answer of `POST /chat/message/sync`: every event of the turn and its outcome. */
export const SyncResultSchema = Type.Object({
  run_id: Uuid,
  events: Type.Array(ChatEventSchema),
  summary: Type.String(),
  artifacts: Type.Array(Type.String()),
}, { title: 'SyncResult' });
export type SyncResult = Static<typeof SyncResultSchema>;

/** Number of history messages when `limit` is absent, and the most one page may hold. */
export const HISTORY_LIMIT = { default: 50, maximum: 500 } as const;

/** Query of `GET /chat/history`. */
export const HistoryQuerySchema = Type.Object({
  structure_id: Uuid,
  role_id: RoleId,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: HISTORY_LIMIT.maximum, default: HISTORY_LIMIT.default })),
  before: Type.Optional(Type.String({ format: 'uuid', description: 'id of a message: only older ones are returned' })),
});
export type HistoryQuery = Static<typeof HistoryQuerySchema>;

/** An artifact on a node's shelf. */
export const ArtifactInfoSchema = Type.Object(
  {
    name: Type.String(),
    size: Type.Integer(),
    content_type: Type.String(),
    created_at: Timestamp,
    run_id: Type.Optional(Type.String({ format: 'uuid', description: 'the run that stored it (absent for files stored before runs were recorded)' })),
    source: Type.Optional(StringEnum(['attachment', 'agent'], { description: 'attached to the run’s message, or written by the agent during the run' })),
  },
  { title: 'ArtifactInfo' },
);
export type ArtifactInfo = Static<typeof ArtifactInfoSchema>;

/** Fewest characters of a run id `GET /chat/runs` takes (as git takes of a commit id). */
export const RUN_PREFIX_MIN = 4;

/** Most runs one answer of `GET /chat/runs` lists. */
export const RUN_MATCHES_MAX = 20;

/** Query of `GET /chat/runs`: the start of a run id, as a person copies it. */
export const RunSearchQuerySchema = Type.Object({
  prefix: Type.String({
    minLength: RUN_PREFIX_MIN,
    maxLength: 36,
    pattern: '^[0-9A-Fa-f-]+$',
    description: `the first characters of a run id (at least ${RUN_PREFIX_MIN}; hex digits and hyphens, any case)`,
  }),
});
export type RunSearchQuery = Static<typeof RunSearchQuerySchema>;

/** A run whose id starts with the prefix asked for, and where it belongs. */
export const RunMatchSchema = Type.Object({
  run_id: Uuid,
  structure_id: Uuid,
  role_id: RoleId,
}, { title: 'RunMatch' });
export type RunMatch = Static<typeof RunMatchSchema>;

/** Answer of `GET /chat/runs`: the matching runs the caller can see, by id. */
export const RunMatchesSchema = Type.Object({
  runs: Type.Array(RunMatchSchema, { description: `by run id, at most ${RUN_MATCHES_MAX}` }),
  more: Type.Boolean({ description: 'true when more runs match than are listed (give more characters)' }),
}, { title: 'RunMatches' });
export type RunMatches = Static<typeof RunMatchesSchema>;
