/**
 * Invites (API.md §5): sharing a structure with an e-mail address sends a one-time
 * acceptance token that expires after 14 days. Only the token's hash is stored, in
 * `.org/invites.json`. Re-inviting an address replaces its pending invite.
 */
import type { Role } from '../auth/roles.js';
import { hashToken, mintToken } from '../auth/tokens.js';
import type { UserService } from '../auth/users.js';
import { OrgError, gone, notFound } from '../errors.js';
import type { Mailer } from '../mail/index.js';
import { JsonFile, KeyedMutex } from '../storage/index.js';
import { isoNow, uuid, type Clock, type IdGenerator, systemClock } from '../util/index.js';
import type { Acceptance, Invite, InviteStatus } from '../schemas/workspaces.js';
import type { MemberService } from './members.js';
import type { StructureService } from './structures.js';

/** Invite lifetime: 14 days. */
export const INVITE_TTL_MS = 14 * 24 * 60 * 60 * 1000;

export type { Acceptance, Invite, InviteStatus } from '../schemas/workspaces.js';

/** An invite as stored. */
export interface InviteRecord {
  id: string;
  structure_id: string;
  email: string;
  role: Role;
  token_hash: string;
  status: 'pending' | 'accepted' | 'replaced';
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

interface InvitesDoc {
  version: 1;
  invites: InviteRecord[];
}

/** Options of the invite service. */
export interface InviteServiceOptions {
  file: string;
  users: UserService;
  structures: Pick<StructureService, 'record'>;
  members: Pick<MemberService, 'set'>;
  mailer: Mailer;
  /** Base URL for links in the invite e-mail (resolved lazily: known only once listening). */
  publicUrl: () => string;
  clock?: Clock;
  ids?: IdGenerator;
}

/** Creates, mails, lists and accepts invites. */
export class InviteService {
  private readonly doc: JsonFile<InvitesDoc>;
  /** Serialises acceptances per invite. */
  private readonly accepting = new KeyedMutex();
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(private readonly options: InviteServiceOptions) {
    this.doc = new JsonFile<InvitesDoc>(options.file, () => ({ version: 1, invites: [] }));
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? uuid;
  }

  /** Loads invites from disk. */
  async load(): Promise<void> {
    await this.doc.load();
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
        text: [
          `${input.invitedBy} invited you to the workspace "${structure.name}" as ${input.role}.`,
          '',
          `Accept in the browser: ${base}/#invite=${token}`,
          `or from a terminal:     org invites accept ${token} --url ${base}`,
          '',
          `This invitation can be used once and expires on ${invite.expires_at}.`,
        ].join('\n'),
      });
    } catch (error) {
      throw new OrgError('unavailable', 'the invite e-mail could not be sent; nothing was changed, try again later', { cause: error });
    }
    await this.doc.update((draft) => {
      for (const old of draft.invites) {
        if (old.structure_id === input.structureId && old.email === email && old.status === 'pending') old.status = 'replaced';
      }
      draft.invites.push(invite);
    });
    return this.toPublic(invite);
  }

  /**
   * Accepts an invite by its token: 404 unknown, 410 expired, used or replaced.
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
    const found = this.doc.current.invites.find((candidate) => candidate.token_hash === hash);
    if (!found) throw notFound('invite not found');
    return this.accepting.run(found.id, async () => {
      const invite = this.doc.current.invites.find((candidate) => candidate.id === found.id) ?? found;
      this.assertUsable(invite);
      const { users, members } = this.options;
      let user = users.byEmail(invite.email);
      let newToken: string | undefined;
      if (!user) {
        const created = await users.create(invite.email, { inviteId: invite.id });
        user = created.user;
        newToken = created.token;
      } else if (users.createdByInvite(user.id) === invite.id) {
        newToken = await users.replaceToken(user.id);
      }
      await members.set(invite.structure_id, user.id, invite.role);
      await this.doc.update((draft) => {
        const stored = draft.invites.find((candidate) => candidate.id === invite.id);
        if (!stored || stored.status !== 'pending') throw gone('this invite has already been used');
        stored.status = 'accepted';
        stored.accepted_at = isoNow(this.clock);
      });
      return {
        structure_id: invite.structure_id,
        role: invite.role,
        user: { id: user.id, email: user.email },
        ...(newToken ? { token: newToken } : {}),
      };
    });
  }

  /** 410 unless the invite is pending and unexpired. */
  private assertUsable(invite: InviteRecord): void {
    const status = this.statusOf(invite);
    if (status === 'expired') throw gone('this invite has expired');
    if (status === 'accepted') throw gone('this invite has already been used');
    if (status === 'replaced') throw gone('this invite was replaced by a newer one');
  }

  /** Open invites of a structure (pending or expired), newest first. */
  list(structureId: string): Invite[] {
    return this.doc.current.invites
      .filter((invite) => invite.structure_id === structureId && invite.status === 'pending')
      .map((invite) => this.toPublic(invite))
      .reverse();
  }
}
