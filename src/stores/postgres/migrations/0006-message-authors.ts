/**
 * The author of each user-side chat message (who wrote it: a user, the administrator, an
 * MCP node key, an e-mail or channel sender, a delegating node), as a JSON record. Messages
 * stored before keep no author (NULL).
 */
import type { Migration } from './index.js';

export const messageAuthors: Migration = {
  version: 6,
  name: 'message-authors',
  sql: `
ALTER TABLE chat_messages ADD COLUMN author jsonb;
`,
};
