/** Wiring of the setup commands: `org login`, `org whoami`, `org token rotate`, `org init`, `org doctor`. */
import type { Command } from 'commander';
import type { DoctorArgs } from '../commands/doctor.js';
import type { InitArgs } from '../commands/init.js';
import type { LoginArgs, TokenRotateArgs, WhoamiArgs } from '../commands/login.js';
import { examples, run, withConnection, type CommandContext } from './common.js';

/** Registers `login`, `whoami`, `token rotate`, `init` and `doctor`. */
export function registerSetup(program: Command, ctx: CommandContext): void {
  program
    .command('login')
    .description('save a server URL and token for the CLI and make it the default server (asks for what you leave out)')
    .option('--url <url>', 'server base URL, e.g. http://127.0.0.1:4780 (asked when omitted)')
    .option('--token <token>', 'your token (org_u_…); env ORG_TOKEN (asked when omitted)')
    .option('--email <email>', 'the e-mail to remember with the token')
    .addHelpText('after', examples('org login', 'org login --url http://127.0.0.1:4780 --token org_u_…', 'ORG_TOKEN=org_u_… org login --url https://org.example.com'))
    .action((flags: LoginArgs) => run(ctx, flags, async () => (await import('../commands/login.js')).runLogin));

  withConnection(program.command('whoami').description('show the server, the token in use and the structures it opens'))
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org whoami', 'org whoami --url http://127.0.0.1:4780 --json'))
    .action((flags: WhoamiArgs) => run(ctx, flags, async () => (await import('../commands/login.js')).runWhoami));

  const token = program.command('token').description('your token on a server').addHelpText('after', examples('org token rotate'));
  withConnection(token.command('rotate').description('replace your token with a new one (the old one stops working); saved where the old one was'))
    .option('--json', 'print JSON (includes the new token)')
    .addHelpText('after', examples('org token rotate', 'org token rotate --url https://org.example.com'))
    .action((flags: TokenRotateArgs) => run(ctx, flags, async () => (await import('../commands/login.js')).runTokenRotate));

  program
    .command('init [dir]')
    .description('scaffold a home folder: skills/ with the bundled library and the template, .gitignore for .org/, git init')
    .option('--no-git', 'do not run git init')
    .option('--no-bundled', 'leave skills/ without the bundled skills')
    .addHelpText('after', examples('org init', 'org init ~/acme-org && cd ~/acme-org && org serve', 'org init --no-bundled'))
    .action((dir: string | undefined, flags: InitArgs) => run(ctx, { ...flags, ...(dir ? { dir } : {}) }, async () => (await import('../commands/init.js')).runInit));

  withConnection(program.command('doctor').description('check the setup: versions, server, credentials, home and skills, git, editor'))
    .option('--home <dir>', 'home folder to check (env ORG_HOME; default: current directory)')
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org doctor', 'org doctor --url http://127.0.0.1:4780 --json'))
    .action((flags: DoctorArgs) => run(ctx, flags, async () => (await import('../commands/doctor.js')).runDoctor));
}
