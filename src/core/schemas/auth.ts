/**
 * The records of users, MCP node keys and the caller's identity (API.md §1, §3, §5),
 * each declared once.
 */
import { Type, type Static } from 'typebox';
import { Nullable, RoleId, StringEnum, Timestamp, Uuid } from './common.js';

/** A user as shown to clients (never the token hash). */
export const PublicUserSchema = Type.Object({ id: Uuid, email: Type.String(), created_at: Timestamp }, { title: 'User' });
export type PublicUser = Static<typeof PublicUserSchema>;

/** `POST /users`: the new user and its token, shown this once. */
export const CreatedUserSchema = Type.Object(
  { user: PublicUserSchema, token: Type.String({ description: 'org_u_… bearer token, shown only here' }) },
  { title: 'CreatedUser' },
);
export type CreatedUser = Static<typeof CreatedUserSchema>;

/**
 * The first characters of a key's token after `org_mcp_` (too few to guess the rest),
 * so keys can be told apart in listings; empty for a key stored without them.
 */
const KeyHint = Type.String({ pattern: '^[0-9A-Za-z]{0,4}$', description: 'the first 4 characters of the token after org_mcp_, to tell keys apart' });

/** An MCP key as listed: never its token. */
export const McpKeyListingSchema = Type.Object({
  id: Uuid,
  prefix: Type.Literal('org_mcp_', { description: 'the fixed prefix every MCP key token starts with' }),
  hint: KeyHint,
  label: Type.String(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
}, { title: 'McpKey' });
export type McpKeyListing = Static<typeof McpKeyListingSchema>;

/** The key record returned on creation: the plaintext token appears only here. */
export const McpKeyCreatedSchema = Type.Object({
  id: Uuid,
  token: Type.String({ description: 'the plaintext token (org_mcp_…), returned only this once' }),
  prefix: Type.Literal('org_mcp_', { description: 'the fixed prefix every MCP key token starts with' }),
  hint: KeyHint,
  label: Type.String(),
  created_at: Timestamp,
}, { title: 'CreatedMcpKey' });
export type McpKeyCreated = Static<typeof McpKeyCreatedSchema>;

/** The node an MCP key belongs to. */
export const KeyIdentitySchema = Type.Object({ id: Uuid, structure_id: Uuid, role_id: RoleId, label: Type.String() }, { title: 'KeyIdentity' });
export type KeyIdentity = Static<typeof KeyIdentitySchema>;

/** `GET /whoami`: the administrator, a user, or an MCP node key with its structure and node. */
export const WhoAmISchema = Type.Object({
  kind: StringEnum(['admin', 'user', 'mcp']),
  admin: Type.Boolean({ description: 'the instance administrator (ORG_ADMIN_TOKEN, or a user who is one, such as the first start’s user): changes the instance skills' }),
  user: Type.Optional(PublicUserSchema),
  key: Type.Optional(KeyIdentitySchema),
}, { title: 'WhoAmI' });
export type WhoAmI = Static<typeof WhoAmISchema>;

/** `GET /health`. */
export const HealthSchema = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  skills: Type.Integer({ description: 'number of skills loaded' }),
  skills_index: Type.Union([Type.Literal('loading'), Type.Literal('ready')], {
    description: 'loading while the skill library is read at start (knowledge requests and turns wait for it), then ready',
  }),
  uncommitted_skill_files: Type.Integer({ description: 'skill files written with --commit whose git commit failed and is being retried (0 without --commit)' }),
}, { title: 'Health' });

/** Readiness of an instance to take traffic (`GET /api/org/health/ready`). */
export const ReadinessSchema = Type.Object({
  status: Type.Literal('ready'),
  checks: Type.Object({
    skills_index: Type.Boolean({ description: 'the skill index is loaded' }),
    store: Type.Boolean({ description: 'the structure store answers and the state folder is writable' }),
    draining: Type.Boolean({ description: 'the instance is shutting down' }),
  }),
}, { title: 'Readiness' });
export type Health = Static<typeof HealthSchema>;

/** Body of `POST …/mcp-key` (optional): the label shown in the revocation UI. */
export const McpKeyRequestSchema = Nullable(Type.Object({ label: Type.Optional(Type.String({ maxLength: 200 })) }));
