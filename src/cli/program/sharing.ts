/** Wiring of `org share`, `org members …`, `org invites …` and `org users add`: people and access. */
import type { Command } from 'commander';
import type { AcceptArgs, MemberRoleArgs, ShareArgs, StructureFlags } from '../commands/sharing.js';
import type { ConnectionFlags } from '../connection.js';
import { examples, run, withConnection, withStructure, type CommandContext } from './common.js';

const runners = () => import('../commands/sharing.js');

/** Registers `share`, `members`, `invites` and `users`. */
export function registerSharing(program: Command, ctx: CommandContext): void {
  withStructure(withConnection(program.command('share <email>').description('invite someone to a structure with a role (owner only)')))
    .requiredOption('-r, --role <role>', 'viewer, operator or owner')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org share ana@example.com --role operator', 'org share bo@example.com --role viewer -s "Acme sales"'))
    .action((email: string, flags: ShareArgs) => run(ctx, { ...flags, email }, async () => (await runners()).runShare));

  const members = program
    .command('members')
    .description('members of a structure: list (with open invites), change a role, remove (owner only)')
    .addHelpText('after', examples('org members', 'org members role ana@example.com owner', 'org members rm bo@example.com'));
  withStructure(withConnection(members.command('list', { isDefault: true }).description('members and open invites of a structure')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org members', 'org members list -s Demo --json'))
    .action((flags: StructureFlags) => run(ctx, flags, async () => (await runners()).runMembers));
  withStructure(withConnection(members.command('role <member> <role>').description("change a member's role (viewer, operator, owner); the last owner stays owner")))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org members role ana@example.com owner', 'org members role 1a2b3c4d viewer -s Demo'))
    .action((member: string, role: string, flags: MemberRoleArgs) => run(ctx, { ...flags, member, role }, async () => (await runners()).runMemberRole));
  withStructure(withConnection(members.command('rm <member>').aliases(['delete', 'remove']).description('remove a member (by e-mail or user id); the last owner cannot be removed')))
    .addHelpText('after', examples('org members rm bo@example.com'))
    .action((member: string, flags: StructureFlags) => run(ctx, { ...flags, member }, async () => (await runners()).runMemberRemove));

  const invites = program
    .command('invites')
    .description('invites: list and revoke the open ones (owner), accept one you received')
    .addHelpText('after', examples('org invites accept org_inv_…', 'org invites list', 'org invites revoke ana@example.com'));
  withStructure(withConnection(invites.command('list').description('open invites of a structure')))
    .option('--json', 'print JSON')
    .action((flags: StructureFlags) => run(ctx, flags, async () => (await runners()).runInvitesList));
  withStructure(withConnection(invites.command('revoke <invite>').description('revoke an open invite (by e-mail or invite id): its token stops working')))
    .addHelpText('after', examples('org invites revoke ana@example.com', 'org invites revoke 1a2b3c4d -s Demo'))
    .action((invite: string, flags: StructureFlags) => run(ctx, { ...flags, invite }, async () => (await runners()).runInvitesRevoke));
  withConnection(invites.command('accept <token>').description('accept an invite with the token from its e-mail'))
    .option('--save', 'save your new token as the login for this server')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org invites accept org_inv_… --url http://127.0.0.1:4780', 'org invites accept org_inv_… --save'))
    .action((token: string, flags: AcceptArgs) => run(ctx, { ...flags, inviteToken: token }, async () => (await runners()).runInvitesAccept));

  const users = program.command('users').description('users of the instance (administrator only)').addHelpText('after', examples('org users add ana@example.com'));
  withConnection(users.command('add <email>').description('create a user and print its token once (administrator token needed)'))
    .option('--json', 'print JSON (includes the token)')
    .addHelpText('after', examples('ORG_TOKEN=$ORG_ADMIN_TOKEN org users add ana@example.com'))
    .action((email: string, flags: ConnectionFlags & { json?: boolean }) => run(ctx, { ...flags, email }, async () => (await runners()).runUsersAdd));
  withConnection(users.command('reset-token <user_id>').description('give a user a new token, printed once, and stop their old one (administrator token needed)'))
    .option('--json', 'print JSON (includes the token)')
    .addHelpText('after', examples('ORG_TOKEN=$ORG_ADMIN_TOKEN org users reset-token 0b6f…'))
    .action((userId: string, flags: ConnectionFlags & { json?: boolean }) =>
      run(ctx, { ...flags, userId }, async () => (await runners()).runUsersResetToken),
    );
}
