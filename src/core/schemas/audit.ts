/**
 * The audit log's records (API.md §9): one entry per state-changing action, saying who
 * (a user, a node key or the administrator), what, on which structure and target, when,
 * from where (address, user agent) and under which request id. Declared once here for
 * the store, the routes, the client and the CLI.
 */
import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common.js';

/** What an entry records. */
export const AUDIT_ACTIONS = [
  'token.new_client',
  'user.create',
  'user.token_rotate',
  'structure.create',
  'structure.rename',
  'structure.delete',
  'structure.restore',
  'node.add',
  'node.update',
  'node.delete',
  'node.restore',
  'member.invite',
  'member.join',
  'member.role_change',
  'member.remove',
  'invite.revoke',
  'key.mint',
  'key.revoke',
  'skill.write',
  'skill.delete',
  'skill.restore',
  'skill.import',
  'skill.import_dry_run',
  'skill.fork',
  'skill.restore_version',
  'webhook.create',
  'webhook.delete',
] as const;
/** One audited action. */
export const AuditActionSchema = StringEnum(AUDIT_ACTIONS);
/** One audited action. */
export type AuditAction = Static<typeof AuditActionSchema>;

/** What kind of caller acted: a person's token, a node's MCP key, the administrator, a run token of a container turn, or nobody yet (invite acceptance). */
export const AUDIT_ACTOR_KINDS = ['user', 'mcp', 'admin', 'run', 'anonymous'] as const;

/** Who acted. */
export const AuditActorSchema = Type.Object(
  {
    kind: StringEnum(AUDIT_ACTOR_KINDS),
    id: Type.String({ description: 'user id, MCP key id, "admin", the run id of a run token, or the user id an invite acceptance signed in' }),
    email: Nullable(Type.String({ description: 'the user’s address, when the actor is a person' })),
  },
  { title: 'AuditActor' },
);
/** Who acted. */
export type AuditActor = Static<typeof AuditActorSchema>;

/** What was acted on. */
export const AuditTargetSchema = Type.Object(
  {
    type: StringEnum(['structure', 'node', 'member', 'invite', 'key', 'skill', 'webhook', 'user', 'token']),
    id: Type.String({ description: 'the target’s id: a role id for nodes, a slug for skills, an id otherwise' }),
  },
  { title: 'AuditTarget' },
);
/** What was acted on. */
export type AuditTarget = Static<typeof AuditTargetSchema>;

/** One entry of the audit log. */
export const AuditEntrySchema = Type.Object(
  {
    id: Uuid,
    at: Timestamp,
    action: AuditActionSchema,
    actor: AuditActorSchema,
    structure_id: Nullable(Uuid),
    target: Nullable(AuditTargetSchema),
    status: Type.Integer({ description: 'the HTTP status the action was answered with' }),
    ip: Type.String({ description: 'the client’s address as the server saw it' }),
    user_agent: Nullable(Type.String()),
    request_id: Type.String({ description: 'the request id (X-Request-Id) of the action' }),
  },
  { title: 'AuditEntry' },
);
/** One entry of the audit log. */
export type AuditEntry = Static<typeof AuditEntrySchema>;

/** Entries per page when `limit` is absent, and the most one page may hold. */
export const AUDIT_LIMIT = { default: 50, maximum: 500 } as const;

/** Filters and paging of the audit routes. */
export const AuditQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: AUDIT_LIMIT.maximum, default: AUDIT_LIMIT.default })),
  before: Type.Optional(Type.String({ format: 'uuid', description: 'an entry id: only entries older than it (the next page)' })),
  action: Type.Optional(Type.String({ maxLength: 500, description: 'comma list of actions, or a prefix ending in "." (e.g. "skill.")' })),
  actor: Type.Optional(Type.String({ maxLength: 254, description: 'the actor’s id or e-mail address' })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'only entries at or after this time' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'only entries before this time' })),
});
/** Filters and paging of the audit routes. */
export type AuditQuery = Static<typeof AuditQuerySchema>;

/** One page of the audit log, newest first; `next_before` pages on (null on the last page). */
export const AuditPageSchema = Type.Object(
  {
    entries: Type.Array(AuditEntrySchema),
    next_before: Nullable(Uuid),
  },
  { title: 'AuditPage' },
);
/** One page of the audit log. */
export type AuditPage = Static<typeof AuditPageSchema>;
