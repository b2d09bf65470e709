/**
 * What delegation asks of authentication and authorization (API.md §10): the run-scoped
 * credentials a container turn receives, and whether the person who started a chain may
 * still hand work on in its structure (a delegation starts turns on their authority, so
 * it needs what chatting needs: operator or owner).
 */
import type { RunCredentials } from '../chat/ports.js';
import type { MemberService } from '../structures/index.js';
import { ACTION_RULES, roleAtLeast } from './roles.js';
import type { RunTokens } from './run-tokens.js';
import type { UserService } from './users.js';

/** The credentials of container turns: a run token and the base URL to use it with. */
export function runCredentials(tokens: RunTokens, publicUrl: () => string): RunCredentials {
  return {
    async issue(where) {
      const { token, expiresAt } = await tokens.issue(where);
      return { api_url: publicUrl(), token, expires_at: expiresAt };
    },
    end: (runId) => tokens.end(runId),
  };
}

/** Why a user may not delegate in a structure now (their role there is below chat's), or undefined. */
export function delegationAuthority(members: Pick<MemberService, 'roleOf'>, users: Pick<UserService, 'byId'>) {
  return async (structureId: string, userId: string): Promise<string | undefined> => {
    const role = members.roleOf(structureId, userId);
    const needed = ACTION_RULES.chat.minRole;
    if (role && roleAtLeast(role, needed)) return undefined;
    const who = (await users.byId(userId))?.email ?? 'the person who started this work';
    const now = role ? `is a ${role} of this structure now` : 'is no longer a member of this structure';
    return `${who}, who started this work, ${now}; handing work to another node needs an ${needed} or owner`;
  };
}
