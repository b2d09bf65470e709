/**
 * Request counts of the rate limit, shared by the instances: one row per key (a token's
 * hash or a client address) holding the count of its current window. The table is
 * UNLOGGED: a counter lost in a database crash only gives its keys a fresh window.
 */
import type { Migration } from './index.js';

export const rateCounts: Migration = {
  version: 3,
  name: 'rate-counts',
  sql: `
CREATE UNLOGGED TABLE org_rate_counts (
  key text PRIMARY KEY,
  window_start bigint NOT NULL, -- when the current window opened (ms since the epoch, database clock)
  count integer NOT NULL
);
CREATE INDEX org_rate_counts_window ON org_rate_counts (window_start);
`,
};
