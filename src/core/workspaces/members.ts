/**
 * Members of structures and their collaborator roles (viewer, operator, owner), each
 * change journaled with the structure.
 */
import type { Role } from '../auth/roles.js';
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
}
