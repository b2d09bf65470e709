import { describeKeyStore, describeUserStore } from '../../../test/support/auth-store-contract.js';
import { describeInviteStore } from '../../../test/support/invite-store-contract.js';
import { usePostgres } from '../../../test/support/pg-fixture.js';
import { createPgInviteStore } from './invites.js';
import { createPgKeyStore } from './keys.js';
import { createPgUserStore } from './users.js';

const pg = usePostgres();

describeUserStore('PostgreSQL', pg.fixture(createPgUserStore));
describeKeyStore('PostgreSQL', pg.fixture(createPgKeyStore));
describeInviteStore('PostgreSQL', pg.fixture(createPgInviteStore));
