/**
 * The ids of inbound webhook messages already accepted (the replay guard shared by the
 * instances): a row per `webhook-id`, kept while a request signed with it could still be
 * accepted. UNLOGGED: a crash of the database loses at most the last minutes' ids, whose
 * requests would also need a fresh timestamp to be replayed.
 */
import type { Migration } from './index.js';

export const inboundMessageIds: Migration = {
  version: 8,
  name: 'inbound-message-ids',
  sql: `
CREATE UNLOGGED TABLE inbound_message_ids (
  id text PRIMARY KEY,
  seen_at bigint NOT NULL -- ms since the epoch
);
CREATE INDEX inbound_message_ids_seen ON inbound_message_ids (seen_at);
`,
};
