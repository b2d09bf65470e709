/**
 * Delegation (API.md §10): each run's parent, root and starter and how many delegations
 * its turn started; the `delegated_by` of a delegated turn's user message; the notes an
 * instance leaves for the one running a delegating turn; and the run-scoped bearers of
 * container turns (hashes only), valid while their run is open and unexpired.
 */
import type { Migration } from './index.js';

export const delegation: Migration = {
  version: 5,
  name: 'delegation',
  sql: `
ALTER TABLE runs
  ADD COLUMN parent_run_id uuid,
  ADD COLUMN root_run_id uuid,
  ADD COLUMN started_by text,
  ADD COLUMN delegations integer NOT NULL DEFAULT 0;
CREATE INDEX runs_open_parent ON runs (parent_run_id) WHERE state <> 'ended' AND parent_run_id IS NOT NULL;
CREATE INDEX runs_open_structure ON runs (structure_id, queue_pos) WHERE state <> 'ended';

ALTER TABLE chat_messages ADD COLUMN delegated_by jsonb;

CREATE TABLE delegation_notes (
  pos bigserial PRIMARY KEY,
  run_id uuid NOT NULL,
  note jsonb NOT NULL
);
CREATE INDEX delegation_notes_run ON delegation_notes (run_id, pos);

CREATE TABLE run_tokens (
  token_hash text PRIMARY KEY,
  run_id uuid NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX run_tokens_run ON run_tokens (run_id);
`,
};
