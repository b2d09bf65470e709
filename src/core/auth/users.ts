/**
 * Users of an instance: an e-mail address and the hash of a bearer token, kept in a
 * `UserStore` (the home's `.org/users.json` by default). Token lookups are cached in
 * memory; on a store shared by several instances, `forget` drops a user another
 * instance changed, and a miss reads the store.
 */
import type { PublicUser } from '../schemas/auth.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { ConnectionRegistry } from './connections.js';
import { createFsUserStore } from './fs-user-store.js';
import { hashToken, mintToken } from './tokens.js';
import type { UserRecord, UserStore } from './user-store.js';

export type { UserRecord } from './user-store.js';

export type { PublicUser } from '../schemas/auth.js';

/** Options of the user service: a store, or the file of the filesystem store. */
export type UserServiceOptions = ({ store: UserStore; file?: undefined } | { file: string; store?: undefined }) & {
  clock?: Clock;
  ids?: IdGenerator;
  /** Open connections by credential: those of a replaced token are closed. */
  connections?: ConnectionRegistry;
};

/** What a stream opened with a replaced token is told as it ends. */
export const TOKEN_REPLACED = 'this token was replaced; sign in with the new one';

/** Creates users and resolves user tokens. */
export class UserService {
  private store: UserStore | undefined;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  /** Users by token hash, as last read. */
  private readonly byHash = new Map<string, UserRecord>();
  /**
   * Counts `forget` calls: a store read that started before a token changed must not put
   * the old token back in the cache when it finishes after the change.
   */
  private generation = 0;

  constructor(private readonly options: UserServiceOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Opens the store (loads the users file of a filesystem home). */
  async load(): Promise<void> {
    if (!this.store && this.options.file !== undefined) this.store = await createFsUserStore(this.options.file);
  }

  private get users(): UserStore {
    if (!this.store) throw new Error('UserService.load() was not called');
    return this.store;
  }

  /** Number of users. */
  count(): Promise<number> {
    return this.users.count();
  }

  /**
   * Creates a user and returns it with its token (shown once). 409 when the address is
   * taken. `inviteId` records the invite whose acceptance creates it; `admin` makes it an
   * instance administrator (the first start's user).
   */
  async create(email: string, options: { inviteId?: string; admin?: boolean } = {}): Promise<{ user: PublicUser; token: string }> {
    const token = mintToken('user');
    const record: UserRecord = {
      id: this.ids(),
      email: normalizeEmail(email),
      token_hash: hashToken(token),
      created_at: isoNow(this.clock),
      ...(options.inviteId ? { invite_id: options.inviteId } : {}),
      ...(options.admin ? { admin: true as const } : {}),
    };
    await this.users.insert(record);
    this.byHash.set(record.token_hash, record);
    return { user: toPublic(record), token };
  }

  /**
   * Replaces a user's token with a new one (returned once): the old one stops working
   * at once on this instance, and on the others sharing the store as soon as they hear of
   * the change. Rotating a leaked token, the administrator resetting a lost one, and
   * finishing an invite acceptance whose first attempt never returned the token.
   */
  async replaceToken(userId: string): Promise<string> {
    const token = mintToken('user');
    this.forget(userId);
    const hash = hashToken(token);
    await this.users.setTokenHash(userId, hash);
    // Again once written: a lookup of the old token that raced the write is dropped too.
    this.forget(userId);
    this.options.connections?.closeUserExcept(userId, hash, TOKEN_REPLACED);
    return token;
  }

  /**
   * Applies a change to a user made on another instance sharing the store: forgets what
   * is cached of it, then ends the connections here that were opened with a token it no
   * longer has.
   */
  async changedElsewhere(userId: string): Promise<void> {
    this.forget(userId);
    await this.closeStale([userId]);
  }

  /**
   * Applies changes that may have been missed (the wake-ups of other instances were
   * lost): forgets every cached user and ends connections opened with tokens that are no
   * longer current.
   */
  async resync(): Promise<void> {
    this.forgetAll();
    await this.closeStale(this.options.connections?.users() ?? []);
  }

  private async closeStale(userIds: readonly string[]): Promise<void> {
    const connections = this.options.connections;
    if (!connections) return;
    for (const id of userIds) {
      const current = await this.users.byId(id);
      connections.closeUserExcept(id, current?.token_hash, TOKEN_REPLACED);
    }
  }

  /** The id of the invite whose acceptance created this user, if any. */
  async createdByInvite(userId: string): Promise<string | undefined> {
    return (await this.users.byId(userId))?.invite_id;
  }

  /** The user whose token hashes to `hash`, if any. */
  async byTokenHash(hash: string): Promise<UserRecord | undefined> {
    const cached = this.byHash.get(hash);
    if (cached) return cached;
    const generation = this.generation;
    const user = await this.users.byTokenHash(hash);
    // A token changed while reading: the record read may be the old one; answer from the store again.
    if (generation !== this.generation) return this.byTokenHash(hash);
    if (user) this.byHash.set(hash, user);
    return user;
  }

  /** True when the user with this id is an instance administrator. */
  async isAdmin(id: string): Promise<boolean> {
    return (await this.users.byId(id))?.admin === true;
  }

  /** The user with this id. */
  async byId(id: string): Promise<PublicUser | undefined> {
    const user = await this.users.byId(id);
    return user && toPublic(user);
  }

  /** The user with this e-mail address (case-insensitive). */
  async byEmail(email: string): Promise<PublicUser | undefined> {
    const user = await this.users.byEmail(normalizeEmail(email));
    return user && toPublic(user);
  }

  /**
   * The user whose token hashes to `hash` when it is already known to this instance,
   * without waiting: the common case of every authenticated request. Undefined means
   * "ask `byTokenHash`", not "unknown".
   */
  knownByTokenHash(hash: string): UserRecord | undefined {
    return this.byHash.get(hash);
  }

  /** Drops what is cached of a user (another instance changed or removed it). */
  forget(userId: string): void {
    this.generation++;
    for (const [hash, user] of this.byHash) if (user.id === userId) this.byHash.delete(hash);
  }

  /** Drops every cached user (wake-ups from other instances may have been missed). */
  forgetAll(): void {
    this.generation++;
    this.byHash.clear();
  }
}

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function toPublic(user: UserRecord): PublicUser {
  return { id: user.id, email: user.email, created_at: user.created_at };
}
