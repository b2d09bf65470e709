/** The audit log: one row per entry, appended only; read newest first by structure or for the instance. */
import type { Migration } from './index.js';

export const audit: Migration = {
  version: 2,
  name: 'audit',
  sql: `
CREATE TABLE audit_log (
  pos bigserial PRIMARY KEY,
  id uuid NOT NULL UNIQUE,
  structure_id uuid,
  action text NOT NULL,
  at text NOT NULL,
  entry jsonb NOT NULL
);
CREATE INDEX audit_log_structure ON audit_log (structure_id, pos);
CREATE INDEX audit_log_action ON audit_log (action, pos);
`,
};
