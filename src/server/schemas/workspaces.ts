/** Schemas of structures, nodes, keys, members and invites (API.md §5). */
import { Type } from 'typebox';
import { Email, RoleId, RoleName, Timestamp, Uuid } from './common.js';

const Coordinate = Type.Number({ minimum: -1e7, maximum: 1e7 });
const ContainerUrl = Type.Union([Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 }), Type.Null()]);
const StartingContext = Type.String({ maxLength: 65536 });

/** A node as returned by the API. */
export const NodeSchema = Type.Object({
  id: Uuid,
  role_id: Type.String(),
  label: Type.String(),
  parent_id: Type.Union([Uuid, Type.Null()]),
  x: Type.Number(),
  y: Type.Number(),
  state: Type.Union([Type.Literal('idle'), Type.Literal('working')]),
  starting_context: Type.String(),
  container_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});

/** An archived node. */
export const ArchivedNodeSchema = Type.Object({
  id: Uuid,
  role_id: Type.String(),
  label: Type.String(),
  parent_id: Type.Union([Uuid, Type.Null()]),
  x: Type.Number(),
  y: Type.Number(),
  starting_context: Type.String(),
  container_url: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  archived_at: Timestamp,
});

/** A structure summary (list entry). */
export const StructureSummarySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  role: RoleName,
  created_at: Timestamp,
  node_count: Type.Integer(),
});

/** A structure detail. */
export const StructureDetailSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  template: Type.String(),
  created_at: Timestamp,
  agents: Type.Array(NodeSchema),
});

/** The structure record returned on creation. */
export const CreatedStructureSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  template: Type.String(),
  created_at: Timestamp,
  role: RoleName,
  agents: Type.Array(NodeSchema),
});

/** Body of POST /structures. */
export const CreateStructureBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  template: Type.String({ minLength: 1, maxLength: 64 }),
});

/** Body of POST /agents. */
export const CreateNodeBody = Type.Object({
  role_id: RoleId,
  label: Type.String({ minLength: 1, maxLength: 200 }),
  parent_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
  x: Type.Optional(Coordinate),
  y: Type.Optional(Coordinate),
  starting_context: Type.Optional(StartingContext),
  container_url: Type.Optional(ContainerUrl),
});

/** Body of PATCH /agents/{role_id}. */
export const PatchNodeBody = Type.Object({
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  parent: Type.Optional({ ...RoleId, description: 'role_id of the new parent node (moves the node with its subtree)' }),
  parent_id: Type.Optional({ ...Uuid, description: 'id of the new parent node (an alternative to parent)' }),
  x: Type.Optional(Coordinate),
  y: Type.Optional(Coordinate),
  starting_context: Type.Optional(StartingContext),
  container_url: Type.Optional(ContainerUrl),
});

/** Body of POST /mcp-key. */
export const CreateKeyBody = Type.Union([Type.Object({ label: Type.Optional(Type.String({ maxLength: 200 })) }), Type.Null()]);

/** The key record returned on creation (token shown once). */
export const CreatedKeySchema = Type.Object({
  id: Uuid,
  token: Type.String(),
  prefix: Type.String(),
  label: Type.String(),
  created_at: Timestamp,
});

/** A key as listed. */
export const KeyListingSchema = Type.Object({
  id: Uuid,
  prefix: Type.String(),
  label: Type.String(),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
});

/** Body of POST /share. */
export const ShareBody = Type.Object({ email: Email, role: RoleName });

/** An invite as shown. */
export const InviteSchema = Type.Object({
  id: Uuid,
  email: Type.String(),
  role: RoleName,
  status: Type.String(),
  created_at: Timestamp,
  expires_at: Timestamp,
});

/** Body of POST /invites/accept. */
export const AcceptBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

/** Result of accepting an invite. */
export const AcceptanceSchema = Type.Object({
  structure_id: Uuid,
  role: RoleName,
  user: Type.Object({ id: Uuid, email: Type.String() }),
  token: Type.Optional(Type.String()),
});

/** A member. */
export const MemberSchema = Type.Object({ user_id: Uuid, email: Type.String(), role: RoleName });

/** A workspace log entry. */
export const LogEntrySchema = Type.Object({
  id: Uuid,
  type: Type.Union([Type.Literal('decision'), Type.Literal('milestone')]),
  title: Type.String(),
  body: Type.Optional(Type.String()),
  role_id: Type.String(),
  node_id: Type.String(),
  run_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});
