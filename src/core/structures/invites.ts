/**
 * Invites (API.md §5): sharing a structure with an e-mail address sends a one-time
 * acceptance token that expires after 14 days. Only the token's hash is stored, in an
 * `InviteStore` (the home's `.org/invites.json` by default). Re-inviting an address
 * replaces its pending invite.
 */
import type { Role } from '../auth/roles.js';
import { hashToken, mintToken } from '../auth/tokens.js';
import type { UserService } from '../auth/users.js';
import { OrgError, gone, notFound } from '../errors.js';
import type { Mailer } from '../mail/index.js';
import { KeyedMutex } from '../storage/index.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import { createFsInviteStore } from './fs-invite-store.js';
import type { InviteRecord, InviteStore } from './invite-store.js';
import type { Acceptance, Invite, InvitePreview, InviteStatus } from '../schemas/structures.js';
import type { MemberService } from './members.js';
import type { StructureService } from './structures.js';
import type { StructureRecord } from './types.js';

export type { InviteRecord } from './invite-store.js';

/** Invite lifetime: 14 days. */
export const INVITE_TTL_MS = 14 * 24 * 60 * 60 * 1000;

export type { Acceptance, Invite, InviteStatus } from '../schemas/structures.js';

/** Options of the invite service: a store, or the file of the filesystem store. */
export type InviteServiceOptions = ({ store: InviteStore; file?: undefined } | { file: string; store?: undefined }) & {
  users: UserService;
  structures: Pick<StructureService, 'record'>;
  members: Pick<MemberService, 'set'>;
  mailer: Mailer;
  /** Base URL for links in the invite e-mail (resolved lazily: known only once listening). */
  publicUrl: () => string;
  clock?: Clock;
  ids?: IdGenerator;
};

/**
 * The text of an invite e-mail. The token and the command that accepts it stand on
 * lines of their own, short enough (under 76 characters) that no mail encoding wraps
 * them, and free of `=`, so they survive being copied even from the raw message (a
 * quoted-printable body escapes `=` and splits long lines; these lines have neither).
 */
export function inviteText(input: { invitedBy: string; structure: string; role: Role; token: string; base: string; expiresAt: string }): string {
  return [
    `${input.invitedBy} invited you to the workspace "${input.structure}" as ${input.role}.`,
    '',
    'Your invite token (it works once):',
    '',
    `    ${input.token}`,
    '',
    'Accept it from a terminal:',
    '',
    `    org invites accept ${input.token} \\`,
    `      --url ${input.base}`,
    '',
    'or in the browser:',
    '',
    `    ${input.base}/#invite=${input.token}`,
    '',
    `This invitation expires on ${input.expiresAt}.`,
  ].join('\n');
}

/** Creates, mails, lists and accepts invites. */
export class InviteService {
  private store: InviteStore | undefined;
  /** Serialises acceptances per invite on this instance (the store's claim decides between instances). */
  private readonly accepting = new KeyedMutex();
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(private readonly options: InviteServiceOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Opens the store (loads the invites file of a filesystem home). */
  async load(): Promise<void> {
    if (!this.store && this.options.file !== undefined) this.store = await createFsInviteStore(this.options.file);
  }

  private get invites(): InviteStore {
    if (!this.store) throw new Error('InviteService.load() was not called');
    return this.store;
  }

  private statusOf(invite: InviteRecord): InviteStatus {
    if (invite.status === 'pending' && Date.parse(invite.expires_at) <= this.clock.now().getTime()) return 'expired';
    return invite.status;
  }

  private toPublic(invite: InviteRecord): Invite {
    return {
      id: invite.id,
      email: invite.email,
      role: invite.role,
      status: this.statusOf(invite),
      created_at: invite.created_at,
      expires_at: invite.expires_at,
    };
  }

  /** Invites `email` to a structure with `role` and mails the acceptance token. */
  async share(input: { structureId: string; email: string; role: Role; invitedBy: string }): Promise<Invite> {
    const structure = this.options.structures.record(input.structureId);
    const email = input.email.trim().toLowerCase();
    const token = mintToken('invite');
    const now = this.clock.now();
    const invite: InviteRecord = {
      id: this.ids(),
      structure_id: input.structureId,
      email,
      role: input.role,
      token_hash: hashToken(token),
      status: 'pending',
      invited_by: input.invitedBy,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITE_TTL_MS).toISOString(),
      accepted_at: null,
    };
    const base = this.options.publicUrl();
    // Mail first: when it cannot be sent nothing is stored and an earlier invite stays valid.
    try {
      await this.options.mailer.send({
        to: email,
        subject: `You are invited to "${structure.name}" on org`,
        text: inviteText({ invitedBy: input.invitedBy, structure: structure.name, role: input.role, token, base, expiresAt: invite.expires_at }),
      });
    } catch (error) {
      throw new OrgError('unavailable', 'the invite e-mail could not be sent; nothing was changed, try again later', { cause: error });
    }
    await this.invites.insert(invite);
    return this.toPublic(invite);
  }

  /**
   * Accepts an invite by its token: 404 unknown, 410 expired, used, replaced, revoked or
   * for a structure deleted into the archive.
   *
   * Crash-safe by ordering, not by a claim: the user (created for this invite when the
   * address has none) and the membership are written first, and the invite is marked
   * used last, so a kill at any point before that leaves it pending and the same token
   * accepts again. Every step is idempotent: the member is set again, and a user this
   * invite created earlier gets a new token, since the first attempt never returned one
   * (the answer goes out only after the invite is marked). Acceptances of one invite
   * run one at a time, so two concurrent ones cannot both succeed.
   */
  async accept(token: string): Promise<Acceptance> {
    const hash = hashToken(token);
    const found = await this.invites.byTokenHash(hash);
    if (!found) throw notFound('invite not found');
    return this.accepting.run(found.id, async () => {
      const invite = (await this.invites.byTokenHash(hash)) ?? found;
      this.assertUsable(invite);
      this.openWorkspace(invite);
      const { users, members } = this.options;
      let user = await users.byEmail(invite.email);
      let newToken: string | undefined;
      if (!user) {
        const created = await users.create(invite.email, { inviteId: invite.id });
        user = created.user;
        newToken = created.token;
      } else if ((await users.createdByInvite(user.id)) === invite.id) {
        newToken = await users.replaceToken(user.id);
      }
      await members.set(invite.structure_id, user.id, invite.role);
      // Marked used last, and only if still pending: of two acceptances (here or on another instance) one wins.
      if (!(await this.invites.claim(invite.id, isoNow(this.clock)))) throw gone('this invite has already been used');
      return {
        structure_id: invite.structure_id,
        role: invite.role,
        user: { id: user.id, email: user.email },
        ...(newToken ? { token: newToken } : {}),
      };
    });
  }

  /**
   * What an invite offers, for its addressee to read before accepting: the structure's
   * name, the role, the address, when it expires, and whether the address already has a
   * user (who then signs in with their own token). 404 unknown, 410 no longer usable (or
   * its structure deleted into the archive).
   */
  async preview(token: string): Promise<InvitePreview> {
    const invite = await this.invites.byTokenHash(hashToken(token));
    if (!invite) throw notFound('invite not found');
    this.assertUsable(invite);
    const structure = this.openWorkspace(invite);
    const user = await this.options.users.byEmail(invite.email);
    return {
      structure_id: invite.structure_id,
      structure_name: structure.name,
      role: invite.role,
      email: invite.email,
      invited_by: invite.invited_by,
      expires_at: invite.expires_at,
      existing_user: user !== undefined && (await this.options.users.createdByInvite(user.id)) !== invite.id,
    };
  }

  /**
   * The structure an invite is for; 410 while it is deleted into the archive (the invite
   * stays pending, so it works again if an owner restores the structure before it expires).
   */
  private openWorkspace(invite: InviteRecord): StructureRecord {
    const structure = this.options.structures.record(invite.structure_id);
    if (structure.archived_at !== undefined) {
      throw gone(`the workspace "${structure.name}" this invite is for was deleted; the invite works again if an owner of it restores the workspace`);
    }
    return structure;
  }

  /** 410 unless the invite is pending and unexpired. */
  private assertUsable(invite: InviteRecord): void {
    const status = this.statusOf(invite);
    if (status === 'expired') throw gone('this invite has expired');
    if (status === 'accepted') throw gone('this invite has already been used');
    if (status === 'replaced') throw gone('this invite was replaced by a newer one');
    if (status === 'revoked') throw gone('this invite was revoked');
  }

  /**
   * Revokes an open invite of a structure: its token stops working at once (410). 404
   * when the structure has no such open invite (accepted, replaced and revoked ones
   * included: there is nothing left to revoke).
   */
  async revoke(structureId: string, inviteId: string): Promise<Invite> {
    const revoked = await this.invites.revoke(structureId, inviteId);
    if (!revoked) throw notFound(`no open invite ${inviteId} in this structure`);
    return this.toPublic(revoked);
  }


  /** Open invites of a structure (pending or expired), newest first. */
  async list(structureId: string): Promise<Invite[]> {
    return (await this.invites.pendingOf(structureId)).map((invite) => this.toPublic(invite));
  }
}
