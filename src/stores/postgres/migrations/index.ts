/**
 * The schema migrations, in order. A migration is never edited once released: a change
 * of the schema is a new file with the next number, added to this list.
 */
import { initial } from './0001-initial.js';
import { audit } from './0002-audit.js';
import { rateCounts } from './0003-rate-counts.js';
import { webhooks } from './0004-webhooks.js';
import { delegation } from './0005-delegation.js';
import { messageAuthors } from './0006-message-authors.js';
import { userAdmin } from './0007-user-admin.js';
import { inboundMessageIds } from './0008-inbound-message-ids.js';

/** One numbered step of the schema. */
export interface Migration {
  version: number;
  /** A short name, recorded with the version. */
  name: string;
  /** Plain SQL, run in one transaction. */
  sql: string;
}

/** Every migration, oldest first. */
export const MIGRATIONS: readonly Migration[] = [initial, audit, rateCounts, webhooks, delegation, messageAuthors, userAdmin, inboundMessageIds];
