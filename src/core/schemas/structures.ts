/**
 * The records of structures, nodes, members, invites and the workspace log (API.md §5),
 * each declared once.
 */
import { Type, type Static } from 'typebox';
import { ROLES } from '../auth/roles.js';
import { ID_MAX_LENGTH, ROLE_ID_PATTERN } from '../util/patterns.js';
import { TEMPLATE_NAMES } from '../structures/templates.js';
import { Email, Nullable, RoleId, StringEnum, Timestamp, Uuid } from './common.js';

/** A member role in a structure, lowest first: viewer, operator, owner. */
export const RoleSchema = StringEnum(ROLES);

/** Node state: `working` while a turn runs (later messages wait in order), `idle` otherwise. */
export const NodeStateSchema = StringEnum(['idle', 'working']);
export type NodeState = Static<typeof NodeStateSchema>;

const nodeFields = {
  id: Uuid,
  role_id: Type.String({ description: 'role id of the form <team>-<role>, unique in the structure' }),
  label: Type.String(),
  parent_id: Nullable(Type.String({ format: 'uuid', description: 'id of the parent node; null for the root' })),
  x: Type.Number({ description: 'horizontal position in the layout' }),
  y: Type.Number({ description: 'vertical position in the layout' }),
  starting_context: Type.String(),
  container_url: Nullable(Type.String({ description: 'http(s) base URL of the node’s agent container, or null for the local runtime' })),
  created_at: Timestamp,
};

/** A node (agent) of a structure, as stored. */
export const NodeRecordSchema = Type.Object(nodeFields, { title: 'NodeRecord' });
export type NodeRecord = Static<typeof NodeRecordSchema>;

/** A node as returned by the API: the record plus its live state. */
export const NodeSchema = Type.Object(
  {
    ...nodeFields,
    state: NodeStateSchema,
    working_for: Type.Optional(Type.String({ description: 'present while the node works on a task another node delegated (API.md §10): that node’s role_id' })),
  },
  { title: 'Node' },
);
export type Node = Static<typeof NodeSchema>;

/** A node in the archive, with the time it was archived. */
export const ArchivedNodeSchema = Type.Object({ ...nodeFields, archived_at: Timestamp }, { title: 'ArchivedNode' });
export type ArchivedNodeRecord = Static<typeof ArchivedNodeSchema>;

/** A structure list entry, with the caller's role. */
export const StructureSummarySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  role: RoleSchema,
  created_at: Timestamp,
  node_count: Type.Integer(),
}, { title: 'StructureSummary' });
export type StructureSummary = Static<typeof StructureSummarySchema>;

/** A structure deleted into the archive, as its owners see it (`GET /structures/archived`). */
export const ArchivedStructureSchema = Type.Object(
  { ...StructureSummarySchema.properties, archived_at: Timestamp },
  { title: 'ArchivedStructure' },
);
export type ArchivedStructure = Static<typeof ArchivedStructureSchema>;

/** Body of `PATCH /structures/{id}`: what an owner may change of a structure. */
export const StructurePatchSchema = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { title: 'StructurePatch' });
export type StructurePatch = Static<typeof StructurePatchSchema>;

const detailFields = {
  id: Uuid,
  name: Type.String(),
  template: Type.String({ description: 'the template it was created from' }),
  created_at: Timestamp,
  agents: Type.Array(NodeSchema, { description: 'every node, each with its parent reference' }),
};

/** A structure with all its nodes. */
export const StructureDetailSchema = Type.Object(detailFields, { title: 'StructureDetail' });
export type StructureDetail = Static<typeof StructureDetailSchema>;

/** The structure record returned on creation: the detail plus the caller's role (owner). */
export const CreatedStructureSchema = Type.Object({ ...detailFields, role: RoleSchema }, { title: 'CreatedStructure' });
export type CreatedStructure = Static<typeof CreatedStructureSchema>;

/** Body of `POST /structures`. */
export const NewStructureSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  template: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: `a template name: ${TEMPLATE_NAMES.join(', ')}; default blank` })),
}, { title: 'NewStructure' });
export type NewStructure = Static<typeof NewStructureSchema>;

const Coordinate = Type.Number({ minimum: -1e7, maximum: 1e7 });
const ContainerUrl = Nullable(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 }));
const StartingContext = Type.String({ maxLength: 65536 });

/** Body of `POST /structures/{id}/agents`; rules between nodes are checked by the service. */
export const NewNodeSchema = Type.Object({
  role_id: RoleId,
  label: Type.String({ minLength: 1, maxLength: 200 }),
  parent: Type.Optional(Type.String({ pattern: ROLE_ID_PATTERN, maxLength: ID_MAX_LENGTH, description: 'role_id of the parent node (an alternative to parent_id)' })),
  parent_id: Type.Optional(Nullable(Type.String({ format: 'uuid', description: 'id of the parent node; absent or null (and no parent) only for the first (root) node' }))),
  x: Type.Optional(Coordinate),
  y: Type.Optional(Coordinate),
  starting_context: Type.Optional(StartingContext),
  container_url: Type.Optional(ContainerUrl),
}, { title: 'NewNode', description: 'Without x (or y), the node is placed one rank below its parent, right of its last child, clear of every other node.' });
export type NewNode = Static<typeof NewNodeSchema>;

/** Body of `PATCH /structures/{id}/agents/{role_id}`. */
export const NodePatchSchema = Type.Object({
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  parent: Type.Optional(Type.String({ pattern: ROLE_ID_PATTERN, maxLength: ID_MAX_LENGTH, description: 'role_id of the new parent node (moves the node with its subtree)' })),
  parent_id: Type.Optional(Type.String({ format: 'uuid', description: 'id of the new parent node (an alternative to parent)' })),
  x: Type.Optional(Coordinate),
  y: Type.Optional(Coordinate),
  starting_context: Type.Optional(StartingContext),
  container_url: Type.Optional(ContainerUrl),
}, { title: 'NodePatch' });
export type NodePatch = Static<typeof NodePatchSchema>;

/** A member of a structure as listed. */
export const MemberSchema = Type.Object({ user_id: Uuid, email: Type.String(), role: RoleSchema }, { title: 'Member' });
export type Member = Static<typeof MemberSchema>;

/** Body of `PATCH /structures/{id}/members/{user_id}`. */
export const MemberRoleSchema = Type.Object({ role: RoleSchema }, { title: 'MemberRole' });
export type MemberRole = Static<typeof MemberRoleSchema>;

/** State of an invite: `expired` is derived from `expires_at`. */
export const InviteStatusSchema = StringEnum(['pending', 'accepted', 'replaced', 'revoked', 'expired']);
export type InviteStatus = Static<typeof InviteStatusSchema>;

/** An invite as shown (never its token). */
export const InviteSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: RoleSchema,
  status: InviteStatusSchema,
  created_at: Timestamp,
  expires_at: Timestamp,
}, { title: 'Invite' });
export type Invite = Static<typeof InviteSchema>;

/** An open invite as the members listing shows it (API.md §5: without `created_at`). */
export const OpenInviteSchema = Type.Omit(InviteSchema, ['created_at'], { title: 'OpenInvite' });
export type OpenInvite = Static<typeof OpenInviteSchema>;

/** `GET /structures/{id}/members`: members and open invites. */
export const MembersSchema = Type.Object({ members: Type.Array(MemberSchema), invites: Type.Array(OpenInviteSchema) }, { title: 'Members' });
export type Members = Static<typeof MembersSchema>;

/** Body of `POST /structures/{id}/share`. */
export const ShareSchema = Type.Object({ email: Email, role: RoleSchema }, { title: 'Share' });
export type Share = Static<typeof ShareSchema>;

/** Body of `POST /invites/accept`. */
export const AcceptInviteSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'the one-time token of the invite e-mail (org_inv_…)' }) }, { title: 'AcceptInvite' });

/** What an invite offers (`POST /invites/preview`), read by its addressee before accepting. */
export const InvitePreviewSchema = Type.Object(
  {
    structure_id: Uuid,
    structure_name: Type.String(),
    role: RoleSchema,
    email: Type.String(),
    invited_by: Type.String({ description: 'who sent the invite (their e-mail address)' }),
    expires_at: Timestamp,
    existing_user: Type.Boolean({ description: 'true when the address already has a user: accepting then adds the structure to it, and its own token signs in' }),
  },
  { title: 'InvitePreview' },
);
export type InvitePreview = Static<typeof InvitePreviewSchema>;

/** Result of accepting an invite; `token` only when the address had no user yet (shown once). */
export const AcceptanceSchema = Type.Object({
  structure_id: Uuid,
  role: RoleSchema,
  user: Type.Object({ id: Uuid, email: Type.String() }),
  token: Type.Optional(Type.String()),
}, { title: 'Acceptance' });
export type Acceptance = Static<typeof AcceptanceSchema>;

/** An entry of the workspace log: a decision, a milestone, or a delegation from one node to another. */
export const LogEntrySchema = Type.Object({
  id: Uuid,
  type: StringEnum(['decision', 'milestone', 'delegation']),
  title: Type.String(),
  body: Type.Optional(Type.String()),
  role_id: Type.String(),
  node_id: Type.String(),
  run_id: Nullable(Type.String()),
  delegation: Type.Optional(
    Type.Object(
      { role_id: Type.String(), run_id: Nullable(Type.String()) },
      { description: 'on a delegation: the node it went to and the run that does the work (null when refused)' },
    ),
  ),
  created_at: Timestamp,
}, { title: 'LogEntry' });
export type LogEntry = Static<typeof LogEntrySchema>;

/** Number of log entries when `limit` is absent, and the most one page may hold. */
export const LOG_LIMIT = { default: 50, maximum: 500 } as const;

/** Query of `GET /structures/{id}/log`. */
export const LogQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LOG_LIMIT.maximum, default: LOG_LIMIT.default })),
});

/** One line of a node's activity timeline: what happened to it, who did it and when. */
export const TimelineEntrySchema = Type.Object({
  type: StringEnum(['created', 'updated', 'moved', 'archived', 'restored']),
  actor: Type.String({ description: 'who made the change: the user\'s e-mail, mcp-key:<key id>, admin, or system' }),
  at: Timestamp,
  fields: Type.Optional(Type.Array(Type.String(), { description: 'for updated: the fields that changed' })),
}, { title: 'TimelineEntry' });
export type TimelineEntry = Static<typeof TimelineEntrySchema>;
