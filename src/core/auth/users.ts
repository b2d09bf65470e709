/**
 * Users of an instance: an e-mail address and the hash of a bearer token.
 * Stored in `.org/users.json`.
 */
import { conflict } from '../errors.js';
import type { PublicUser } from '../schemas/auth.js';
import { JsonFile } from '../storage/index.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import { hashToken, mintToken } from './tokens.js';

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
}

export type { PublicUser } from '../schemas/auth.js';

interface UsersDoc {
  version: 1;
  users: UserRecord[];
}

/** Options of the user service. */
export interface UserServiceOptions {
  file: string;
  clock?: Clock;
  ids?: IdGenerator;
}

/** Creates users and resolves user tokens. */
export class UserService {
  private readonly doc: JsonFile<UsersDoc>;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private byHash = new Map<string, UserRecord>();

  constructor(options: UserServiceOptions) {
    this.doc = new JsonFile<UsersDoc>(options.file, () => ({ version: 1, users: [] }));
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Loads users from disk. */
  async load(): Promise<void> {
    await this.doc.load();
    this.reindex();
  }

  private reindex(): void {
    this.byHash = new Map(this.doc.current.users.map((user) => [user.token_hash, user]));
  }

  /** Number of users. */
  count(): number {
    return this.doc.current.users.length;
  }

  /**
   * Creates a user and returns it with its token (shown once). 409 when the address is
   * taken. `inviteId` records the invite whose acceptance creates it.
   */
  async create(email: string, options: { inviteId?: string } = {}): Promise<{ user: PublicUser; token: string }> {
    const normalized = email.trim().toLowerCase();
    const token = mintToken('user');
    const record: UserRecord = {
      id: this.ids(),
      email: normalized,
      token_hash: hashToken(token),
      created_at: isoNow(this.clock),
      ...(options.inviteId ? { invite_id: options.inviteId } : {}),
    };
    await this.doc.update((draft) => {
      if (draft.users.some((user) => user.email === normalized)) throw conflict(`a user with e-mail ${normalized} already exists`);
      draft.users.push(record);
    });
    this.reindex();
    return { user: toPublic(record), token };
  }

  /**
   * Replaces a user's token with a new one (returned once; the old one stops working).
   * Used only to finish an invite acceptance whose first attempt never returned the token.
   */
  async replaceToken(userId: string): Promise<string> {
    const token = mintToken('user');
    await this.doc.update((draft) => {
      const user = draft.users.find((candidate) => candidate.id === userId);
      if (!user) throw new Error(`no user ${userId}`);
      user.token_hash = hashToken(token);
    });
    this.reindex();
    return token;
  }

  /** The id of the invite whose acceptance created this user, if any. */
  createdByInvite(userId: string): string | undefined {
    return this.doc.current.users.find((candidate) => candidate.id === userId)?.invite_id;
  }

  /** The user whose token hashes to `hash`, if any. */
  byTokenHash(hash: string): UserRecord | undefined {
    return this.byHash.get(hash);
  }

  /** The user with this id. */
  byId(id: string): PublicUser | undefined {
    const user = this.doc.current.users.find((candidate) => candidate.id === id);
    return user && toPublic(user);
  }

  /** The user with this e-mail address (case-insensitive). */
  byEmail(email: string): PublicUser | undefined {
    const normalized = email.trim().toLowerCase();
    const user = this.doc.current.users.find((candidate) => candidate.email === normalized);
    return user && toPublic(user);
  }
}

function toPublic(user: UserRecord): PublicUser {
  return { id: user.id, email: user.email, created_at: user.created_at };
}
