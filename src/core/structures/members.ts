/**
 * Members of structures and their member roles (viewer, operator, owner), each
 * change journaled with the structure.
 */
import type { Role } from '../auth/roles.js';
import { conflict, notFound } from '../errors.js';
import { isoNow, type Clock, systemClock } from '../util/index.js';
import type { Actor, StructureRegistry } from './registry.js';
import type { MemberRecord } from './types.js';

/** The members of structures. */
export class MemberService {
  private readonly clock: Clock;

  constructor(
    private readonly registry: StructureRegistry,
    clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
  }

  /** Members of a structure; 404 when it is unknown. */
  list(structureId: string): MemberRecord[] {
    return this.registry.get(structureId).members;
  }

  /** The role of a user in a structure, if a member. */
  roleOf(structureId: string, userId: string): Role | undefined {
    if (!this.registry.has(structureId)) return undefined;
    return this.registry.get(structureId).members.find((member) => member.user_id === userId)?.role;
  }

  /** Adds a member, or changes the role of an existing one. */
  async set(structureId: string, userId: string, role: Role, actor: Actor = 'system'): Promise<void> {
    await this.registry.change(structureId, actor, (record) => {
      const existing = record.members.find((member) => member.user_id === userId);
      if (existing?.role === role) return { changes: [], result: undefined };
      return { changes: [{ op: 'member.set', member: { user_id: userId, role, added_at: existing?.added_at ?? isoNow(this.clock) } }], result: undefined };
    });
  }

  /**
   * Changes the role of an existing member; 404 when the user is not one, 409 when it
   * would leave the structure without an owner.
   */
  async changeRole(structureId: string, userId: string, role: Role, actor: Actor = 'system'): Promise<MemberRecord> {
    return this.registry.change(structureId, actor, (record) => {
      const member = record.members.find((candidate) => candidate.user_id === userId);
      if (!member) throw notFound(`user ${userId} is not a member of this structure`);
      if (member.role === 'owner' && role !== 'owner') assertAnotherOwner(record.members, userId, 'demoted');
      const changed: MemberRecord = { ...member, role };
      if (member.role === role) return { changes: [], result: changed };
      return { changes: [{ op: 'member.set', member: changed }], result: changed };
    });
  }

  /** Removes a member; 404 when the user is not one, 409 for the last owner. */
  async remove(structureId: string, userId: string, actor: Actor = 'system'): Promise<MemberRecord> {
    return this.registry.change(structureId, actor, (record) => {
      const member = record.members.find((candidate) => candidate.user_id === userId);
      if (!member) throw notFound(`user ${userId} is not a member of this structure`);
      if (member.role === 'owner') assertAnotherOwner(record.members, userId, 'removed');
      return { changes: [{ op: 'member.remove', user_id: userId }], result: { ...member } };
    });
  }
}

/** A structure keeps at least one owner: 409 when `userId` is its last one. */
function assertAnotherOwner(members: MemberRecord[], userId: string, what: 'demoted' | 'removed'): void {
  if (members.some((member) => member.role === 'owner' && member.user_id !== userId)) return;
  throw conflict(`the last owner of a structure cannot be ${what}: make another member owner first`);
}
