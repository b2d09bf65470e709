/**
 * Completion webhooks shared by every instance: registrations (with their secrets), and
 * the outbox of deliveries that is also the deliveries log. A delivery is claimed by the
 * instance that attempts it (`owner`); a claim whose owner is no longer alive is free.
 */
import type { Migration } from './index.js';

export const webhooks: Migration = {
  version: 4,
  name: 'webhooks',
  sql: `
CREATE TABLE webhooks (
  pos bigserial PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  structure_id uuid NOT NULL,
  record jsonb NOT NULL,
  secret text NOT NULL
);
CREATE INDEX webhooks_structure ON webhooks (structure_id, pos);
CREATE TABLE webhook_deliveries (
  pos bigserial PRIMARY KEY,
  id text NOT NULL UNIQUE,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_type text NOT NULL,
  status text NOT NULL,
  response_code integer,
  attempts jsonb NOT NULL DEFAULT '[]',
  created_at text NOT NULL,
  next_attempt_at timestamptz,
  owner uuid,
  body text NOT NULL
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, pos);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
`,
};
