/**
 * Instance administrators among users (API.md §10): `admin` marks a user who may change
 * the instance skills. A database of an earlier version had none: the user the first
 * start created (`owner@localhost`, not created by an invite) becomes one, so the
 * single-user set-up keeps changing its library; users created later are not.
 */
import type { Migration } from './index.js';

export const userAdmin: Migration = {
  version: 7,
  name: 'user-admin',
  sql: `
ALTER TABLE users ADD COLUMN admin boolean NOT NULL DEFAULT false;
UPDATE users SET admin = true WHERE email = 'owner@localhost' AND invite_id IS NULL;
`,
};
