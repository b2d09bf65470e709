/**
 * Runners of `org share`, `org members list|role|rm`, `org invites list|revoke|accept`
 * and `org users add`: people and access.
 */
import type { OrgClient } from '../../client/index.js';
import type { Member, Members, Role } from '../../client/types.js';
import { saveLogin } from '../../core/credentials.js';
import { invalid, notFound } from '../../core/errors.js';
import { configDirOf, type ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { commandLine } from '../quote.js';
import { describeStructure, findStructure } from '../resolve.js';

/** The collaborator roles, lowest first. */
export const ROLES: readonly Role[] = ['viewer', 'operator', 'owner'];

function roleOf(raw: string, flag: string): Role {
  if ((ROLES as readonly string[]).includes(raw)) return raw as Role;
  throw invalid(`${flag} must be one of ${ROLES.join(', ')} (got "${raw}")`);
}

/** Flags of the commands that act in one structure. */
export interface StructureFlags extends ConnectionFlags {
  structure?: string;
  json?: boolean;
}

/** Arguments of `org share`. */
export interface ShareArgs extends StructureFlags {
  email: string;
  role: string;
}

/** Invites an address to a structure with a role; the invite e-mail carries the token. */
export async function runShare(args: ShareArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const role = roleOf(args.role, '--role');
  const client = await connect(args, deps);
  const structure = await findStructure(client, args.structure, deps.env);
  const { invite } = await client.share(structure.id, args.email, role);
  if (args.json) printJson(deps.output, { invite });
  else {
    deps.output.out(`invited ${invite.email} to ${structure.name} as ${invite.role}; the invite expires ${invite.expires_at}`);
    deps.output.out('they accept it with: org invites accept TOKEN   (the token is in the invite e-mail)');
  }
  return 0;
}

/** Lists the members and open invites of a structure. */
export async function runMembers(args: StructureFlags, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structure = await findStructure(client, args.structure, deps.env);
  const members = await client.members(structure.id);
  if (args.json) {
    printJson(deps.output, members);
    return 0;
  }
  printRows(deps.output, members.members, {
    columns: [
      { header: 'email', value: (m) => m.email },
      { header: 'role', value: (m) => m.role },
      { header: 'user id', value: (m) => m.user_id },
    ],
    empty: 'no members',
  });
  if (members.invites.length) {
    deps.output.out('');
    printInvites(deps, members.invites);
  }
  return 0;
}

function printInvites(deps: CommandDeps, invites: Members['invites'], json?: boolean): void {
  printRows(deps.output, invites, {
    json,
    columns: [
      { header: 'invited', value: (i) => i.email },
      { header: 'role', value: (i) => i.role },
      { header: 'status', value: (i) => i.status },
      { header: 'expires', value: (i) => i.expires_at },
      { header: 'id', value: (i) => i.id },
    ],
    empty: 'no open invites',
  });
}

/** The member `ref` names: an e-mail address, a user id or an id prefix. */
function findMember(members: Member[], ref: string, where: string): Member {
  const lower = ref.toLowerCase();
  const matches = members.filter((m) => m.email.toLowerCase() === lower || m.user_id === ref);
  const found = matches.length > 0 ? matches : members.filter((m) => m.user_id.startsWith(ref));
  if (found.length === 1) return found[0]!;
  if (found.length > 1) throw invalid(`"${ref}" matches several members of ${where}: ${found.map((m) => m.email).join(', ')}`);
  throw notFound(`${where} has no member "${ref}"${members.length ? ` (members: ${members.map((m) => m.email).join(', ')})` : ''}`);
}

async function memberTarget(client: OrgClient, args: StructureFlags & { member: string }, deps: CommandDeps) {
  const structure = await findStructure(client, args.structure, deps.env);
  const { members } = await client.members(structure.id);
  return { structure, member: findMember(members, args.member, describeStructure(structure)) };
}

/** Arguments of `org members role`. */
export interface MemberRoleArgs extends StructureFlags {
  member: string;
  role: string;
}

/** Changes a member's role (an owner cannot demote the last owner). */
export async function runMemberRole(args: MemberRoleArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const role = roleOf(args.role, 'the role');
  const client = await connect(args, deps);
  const { structure, member } = await memberTarget(client, args, deps);
  const updated = await client.setMemberRole(structure.id, member.user_id, role);
  if (args.json) printJson(deps.output, updated);
  else deps.output.out(`${updated.email} is now ${updated.role} of ${structure.name} (was ${member.role})`);
  return 0;
}

/** Removes a member from a structure (an owner cannot remove the last owner). */
export async function runMemberRemove(args: StructureFlags & { member: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const { structure, member } = await memberTarget(client, args, deps);
  await client.removeMember(structure.id, member.user_id);
  deps.output.out(`removed ${member.email} (${member.role}) from ${structure.name}; invite them again with: ${commandLine('org', 'share', member.email, '--role', member.role, '-s', structure.name)}`);
  return 0;
}

/** Lists the open invites of a structure. */
export async function runInvitesList(args: StructureFlags, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structure = await findStructure(client, args.structure, deps.env);
  printInvites(deps, (await client.members(structure.id)).invites, args.json);
  return 0;
}

/** Revokes a pending invite (named by its id, an id prefix or the invited address): its token stops working. */
export async function runInvitesRevoke(args: StructureFlags & { invite: string }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structure = await findStructure(client, args.structure, deps.env);
  const { invites } = await client.members(structure.id);
  const lower = args.invite.toLowerCase();
  const exact = invites.filter((i) => i.id === args.invite || i.email === lower);
  const found = exact.length > 0 ? exact : invites.filter((i) => i.id.startsWith(args.invite));
  if (found.length === 0) throw notFound(`${describeStructure(structure)} has no open invite "${args.invite}" (list them with: ${commandLine('org', 'invites', 'list', '-s', structure.name)})`);
  if (found.length > 1) throw invalid(`"${args.invite}" matches several invites: ${found.map((i) => `${i.email} (${i.id.slice(0, 8)})`).join(', ')}`);
  const invite = found[0]!;
  await client.revokeInvite(structure.id, invite.id);
  deps.output.out(`revoked the invite of ${invite.email} to ${structure.name}; its token no longer works`);
  return 0;
}

/** Arguments of `org invites accept`. */
export interface AcceptArgs extends ConnectionFlags {
  inviteToken: string;
  /** Save the new user's token as the login for this server (default when none is saved). */
  save?: boolean;
  json?: boolean;
}

/** Accepts an invite; a new user's token is printed once (and saved with --save). */
export async function runInvitesAccept(args: AcceptArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps, { tokenRequired: false });
  const acceptance = await client.acceptInvite(args.inviteToken.trim());
  if (args.json) {
    printJson(deps.output, acceptance);
    return 0;
  }
  deps.output.out(`${acceptance.user.email} is now ${acceptance.role} of structure ${acceptance.structure_id}`);
  if (acceptance.token) {
    if (args.save) {
      const file = await saveLogin(configDirOf(deps.env), client.url, { token: acceptance.token, email: acceptance.user.email });
      deps.output.out(`your new token is saved to ${file}; the CLI now uses it for ${client.url}`);
    } else {
      deps.output.out('');
      deps.output.out(`  ${acceptance.token}`);
      deps.output.out('');
      deps.output.err('warning: this is your new token and it is shown only once — store it, or log in with:');
      deps.output.err(`  ${commandLine('org', 'login', '--url', client.url, '--token', acceptance.token)}`);
    }
  }
  return 0;
}

/** Creates a user (administrator only) and prints its token once. */
export async function runUsersAdd(args: ConnectionFlags & { email: string; json?: boolean }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const created = await client.createUser(args.email);
  if (args.json) {
    printJson(deps.output, created);
    return 0;
  }
  printUserToken(deps, `created user ${created.user.email} (${created.user.id})`, created.token, client.url);
  return 0;
}

/** Arguments of `org users reset-token`. */
export interface ResetTokenArgs extends ConnectionFlags {
  userId: string;
  json?: boolean;
}

/** The administrator gives a user a new token (printed once) and stops their old one. */
export async function runUsersResetToken(args: ResetTokenArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const reset = await client.resetUserToken(args.userId);
  if (args.json) {
    printJson(deps.output, reset);
    return 0;
  }
  printUserToken(deps, `new token for ${reset.user.email} (${reset.user.id}); their old one no longer works:`, reset.token, client.url);
  return 0;
}

/** Prints a user's token, shown this once, with how to hand it over and log in with it. */
function printUserToken(deps: CommandDeps, heading: string, token: string, url: string): void {
  deps.output.out(heading);
  deps.output.out('');
  deps.output.out(`  ${token}`);
  deps.output.out('');
  deps.output.err('warning: this token is shown only once — hand it to the user over a safe channel.');
  deps.output.err(`they log in with: ${commandLine('org', 'login', '--url', url)} --token TOKEN`);
}
