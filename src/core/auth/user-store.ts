/**
 * Where users are kept, behind one interface with one implementation per backend (the
 * filesystem home's `.org/users.json`, a PostgreSQL table). Only token hashes are stored.
 */

/** A user as stored (the token only as its hash). */
export interface UserRecord {
  id: string;
  email: string;
  token_hash: string;
  created_at: string;
  /**
   * The invite whose acceptance created this user. While that invite is still pending,
   * an acceptance cut short by a crash never returned the token: the retry gets a new one.
   */
  invite_id?: string;
  /**
   * An instance administrator (API.md §10): may change the instance skills, like
   * `ORG_ADMIN_TOKEN`. The user the first start of a home creates is one; users created
   * later are not.
   */
  admin?: true;
}

/** The user storage contract, one implementation per backend; a shared contract suite runs against each. */
export interface UserStore {
  /** The user whose token hashes to `hash`. */
  byTokenHash(hash: string): Promise<UserRecord | undefined>;
  /** The user with this id. */
  byId(id: string): Promise<UserRecord | undefined>;
  /** The user with this (normalised, lower-case) e-mail address. */
  byEmail(email: string): Promise<UserRecord | undefined>;
  /** Number of users. */
  count(): Promise<number>;
  /** Every user, oldest first (for copying a home to another backend). */
  list(): Promise<UserRecord[]>;
  /** Stores a new user durably; 409 `OrgError` when the e-mail address is taken. */
  insert(record: UserRecord): Promise<void>;
  /** Replaces a user's token hash (404-free: an unknown id is a programming error and throws). */
  setTokenHash(id: string, hash: string): Promise<void>;
}
