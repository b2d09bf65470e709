/**
 * The first schema: every kind of service state the filesystem home keeps under
 * `.org/`, one table (or two) each. Timestamps that the API returns are kept as the
 * ISO 8601 text the service produced, so they round-trip exactly; timestamps that only
 * the database compares (leases, queue times) are `timestamptz`.
 */
import type { Migration } from './index.js';

export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
-- Instances of org serve sharing this database, with their lease.
CREATE TABLE org_instances (
  id uuid PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  draining boolean NOT NULL DEFAULT false,
  info jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL UNIQUE,
  token_hash text NOT NULL UNIQUE,
  created_at text NOT NULL,
  invite_id text
);

CREATE TABLE mcp_keys (
  id uuid PRIMARY KEY,
  structure_id uuid NOT NULL,
  node_id uuid NOT NULL,
  role_id text NOT NULL,
  label text NOT NULL,
  prefix text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  created_at text NOT NULL,
  last_used_at text,
  revoked_at text
);
CREATE INDEX mcp_keys_node ON mcp_keys (structure_id, node_id);

CREATE TABLE invites (
  id uuid PRIMARY KEY,
  structure_id uuid NOT NULL,
  email text NOT NULL,
  role text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  status text NOT NULL,
  invited_by text NOT NULL,
  created_at text NOT NULL,
  expires_at text NOT NULL,
  accepted_at text,
  pos bigserial NOT NULL
);
CREATE INDEX invites_structure ON invites (structure_id, pos);

-- A structure is a base record plus its journal of changes (see core/structures/changes.ts).
-- Every create and append takes a number from structure_clock (column changed), so an
-- instance finds what other instances changed since it last looked.
CREATE SEQUENCE structure_clock;
CREATE TABLE structures (
  id uuid PRIMARY KEY,
  base jsonb NOT NULL,
  -- The last change the base includes, and the last change of the journal.
  base_seq bigint NOT NULL DEFAULT 0,
  seq bigint NOT NULL DEFAULT 0,
  created_at text NOT NULL,
  changed bigint NOT NULL
);
CREATE INDEX structures_changed ON structures (changed);
CREATE TABLE structure_changes (
  structure_id uuid NOT NULL REFERENCES structures (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  node_id uuid,
  entry jsonb NOT NULL,
  PRIMARY KEY (structure_id, seq)
);
CREATE INDEX structure_changes_node ON structure_changes (structure_id, node_id) WHERE node_id IS NOT NULL;

-- The workspace log: decisions and milestones.
CREATE TABLE workspace_log (
  pos bigserial PRIMARY KEY,
  structure_id uuid NOT NULL,
  entry jsonb NOT NULL
);
CREATE INDEX workspace_log_structure ON workspace_log (structure_id, pos);

-- Chat: a node's messages, its runs (the per-node queue) and each run's events.
CREATE TABLE chat_messages (
  pos bigserial PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  structure_id uuid NOT NULL,
  node_id uuid NOT NULL,
  run_id uuid NOT NULL,
  sender text NOT NULL,
  text text NOT NULL,
  attachments jsonb NOT NULL DEFAULT '[]',
  summary text,
  artifacts jsonb NOT NULL DEFAULT '[]',
  status text NOT NULL,
  created_at text NOT NULL,
  completed_at text,
  origin text
);
CREATE INDEX chat_messages_node ON chat_messages (structure_id, node_id, pos);
CREATE UNIQUE INDEX chat_messages_agent_run ON chat_messages (run_id) WHERE sender = 'agent';

CREATE SEQUENCE runs_queue;
CREATE TABLE runs (
  run_id uuid PRIMARY KEY,
  structure_id uuid NOT NULL,
  node_id uuid NOT NULL,
  role_id text NOT NULL,
  -- The instance that runs the turn (it received the message).
  owner uuid NOT NULL,
  -- Arrival order within the node: turns of a node run one at a time in this order.
  queue_pos bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('queued', 'running', 'ended')),
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  ended_at timestamptz,
  -- A cancel asked for on another instance: the owner stops the runtime.
  cancel_reason text,
  cancel_by text
);
CREATE INDEX runs_open_node ON runs (node_id, queue_pos) WHERE state <> 'ended';
CREATE INDEX runs_open_owner ON runs (owner) WHERE state <> 'ended';
CREATE INDEX runs_running_structure ON runs (structure_id) WHERE state = 'running';

CREATE TABLE run_events (
  run_id uuid NOT NULL,
  seq integer NOT NULL,
  type text NOT NULL,
  -- The event's JSON text exactly as it was serialised once by the appender.
  json text NOT NULL,
  PRIMARY KEY (run_id, seq)
);

-- A node's artifact shelf (attachments and files agents wrote), bytes included.
CREATE TABLE artifacts (
  structure_id uuid NOT NULL,
  node_id uuid NOT NULL,
  name text NOT NULL,
  size bigint NOT NULL,
  content_type text NOT NULL,
  created_at text NOT NULL,
  info jsonb NOT NULL DEFAULT '{}',
  data bytea NOT NULL,
  PRIMARY KEY (structure_id, node_id, name)
);

-- Replies owed to inbound e-mails (sent once their turn ends, also after a crash).
CREATE TABLE inbound_replies (
  run_id uuid PRIMARY KEY,
  owed jsonb NOT NULL,
  -- The instance that sends the reply (the one that took the e-mail, or one that took over).
  owner uuid NOT NULL,
  sent_at timestamptz
);
CREATE INDEX inbound_replies_owed ON inbound_replies (owner) WHERE sent_at IS NULL;

-- Request counts of the rate limit, shared by every instance; rebuilt from zero after a crash.
CREATE UNLOGGED TABLE rate_limits (
  key text PRIMARY KEY,
  hits integer NOT NULL,
  reset_at timestamptz NOT NULL
);
`,
};
