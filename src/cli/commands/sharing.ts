/** `org share`, `org members`, `org invites accept`, `org users add`: people and access. */
import type { Command } from 'commander';
import type { Role } from '../../client/types.js';
import { saveLogin } from '../../core/credentials.js';
import { invalid } from '../../core/errors.js';
import { configDirOf, type ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printTable } from '../format.js';
import { findStructure } from '../resolve.js';
import { examples, withConnection, withStructure, type CommandContext } from './common.js';

const ROLES: readonly Role[] = ['viewer', 'operator', 'owner'];

/** Arguments of `org share`. */
export interface ShareArgs extends ConnectionFlags {
  email: string;
  role: string;
  structure?: string;
  json?: boolean;
}

/** Invites an address to a structure with a role; the invite e-mail carries the token. */
export async function runShare(args: ShareArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  if (!(ROLES as readonly string[]).includes(args.role)) throw invalid(`--role must be one of ${ROLES.join(', ')}`);
  const client = await connect(args, deps);
  const structure = await findStructure(client, args.structure, deps.env);
  const { invite } = await client.share(structure.id, args.email, args.role as Role);
  if (args.json) printJson(deps.output, { invite });
  else {
    deps.output.out(`invited ${invite.email} to ${structure.name} as ${invite.role}; the invite expires ${invite.expires_at}`);
    deps.output.out('they accept it with: org invites accept TOKEN   (the token is in the invite e-mail)');
  }
  return 0;
}

/** Lists the members and open invites of a structure. */
export async function runMembers(args: ConnectionFlags & { structure?: string; json?: boolean }, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const client = await connect(args, deps);
  const structure = await findStructure(client, args.structure, deps.env);
  const members = await client.members(structure.id);
  if (args.json) {
    printJson(deps.output, members);
    return 0;
  }
  printTable(deps.output, members.members, [{ header: 'email', value: (m) => m.email }, { header: 'role', value: (m) => m.role }], 'no members');
  if (members.invites.length) {
    deps.output.out('');
    printTable(
      deps.output,
      members.invites,
      [
        { header: 'invited', value: (i) => i.email },
        { header: 'role', value: (i) => i.role },
        { header: 'status', value: (i) => i.status },
        { header: 'expires', value: (i) => i.expires_at },
      ],
      '',
    );
  }
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
  const acceptance = await client.acceptInvite(args.inviteToken);
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
      deps.output.err(`  org login --url ${client.url} --token ${acceptance.token}`);
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
  deps.output.out(`created user ${created.user.email} (${created.user.id})`);
  deps.output.out('');
  deps.output.out(`  ${created.token}`);
  deps.output.out('');
  deps.output.err('warning: this token is shown only once — hand it to the user over a safe channel.');
  deps.output.err(`they log in with: org login --url ${client.url} --token TOKEN`);
  return 0;
}

/** Registers `share`, `members`, `invites` and `users`. */
export function registerSharing(program: Command, ctx: CommandContext): void {
  const deps = () => ({ output: ctx.output, ...ctx.deps });
  withStructure(withConnection(program.command('share <email>').description('invite someone to a structure with a role (owner only)')))
    .requiredOption('-r, --role <role>', 'viewer, operator or owner')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org share ana@example.com --role operator', 'org share bo@example.com --role viewer -s "Acme sales"'))
    .action(async (email: string, flags: ShareArgs) => ctx.setExit(await runShare({ ...flags, email }, deps())));

  withStructure(withConnection(program.command('members').description('members and open invites of a structure (owner only)')))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org members', 'org members -s Demo --json'))
    .action(async (flags: ConnectionFlags & { structure?: string; json?: boolean }) => ctx.setExit(await runMembers(flags, deps())));

  const invites = program.command('invites').description('invites you received').addHelpText('after', examples('org invites accept org_inv_…'));
  withConnection(invites.command('accept <token>').description('accept an invite with the token from its e-mail'))
    .option('--save', 'save your new token as the login for this server')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org invites accept org_inv_… --url http://127.0.0.1:4780', 'org invites accept org_inv_… --save'))
    .action(async (token: string, flags: AcceptArgs) => ctx.setExit(await runInvitesAccept({ ...flags, inviteToken: token }, deps())));

  const users = program.command('users').description('users of the instance (administrator only)').addHelpText('after', examples('org users add ana@example.com'));
  withConnection(users.command('add <email>').description('create a user and print its token once (administrator token needed)'))
    .option('--json', 'print JSON (includes the token)')
    .addHelpText('after', examples('ORG_TOKEN=$ORG_ADMIN_TOKEN org users add ana@example.com'))
    .action(async (email: string, flags: ConnectionFlags & { json?: boolean }) => ctx.setExit(await runUsersAdd({ ...flags, email }, deps())));
}
