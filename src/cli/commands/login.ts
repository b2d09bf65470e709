/** `org login` and `org whoami`: save a server's token, and show who the CLI is talking as. */
import type { Command } from 'commander';
import { saveLogin } from '../../core/credentials.js';
import { invalid } from '../../core/errors.js';
import { configDirOf, normalizeUrl, resolveConnection, type ConnectionFlags } from '../connection.js';
import { withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printTable } from '../format.js';
import { examples, withConnection, type CommandContext } from './common.js';

/** Arguments of `org login`. */
export interface LoginArgs {
  url?: string;
  token?: string;
  email?: string;
}

/** Checks the token against the server, then saves it for the URL (and makes that URL the default). */
export async function runLogin(args: LoginArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const raw = args.url ?? deps.env.ORG_URL;
  if (!raw) throw invalid('give the server with --url URL');
  const url = normalizeUrl(raw);
  const token = args.token ?? deps.env.ORG_TOKEN;
  if (!token) throw invalid('give the token with --token TOKEN');
  const client = deps.makeClient({ url, token, urlSource: 'flag', tokenSource: 'flag' });
  const me = await client.whoami();
  const email = args.email ?? me.email;
  const file = await saveLogin(configDirOf(deps.env), url, { token, ...(email ? { email } : {}) });
  deps.output.out(`logged in to ${url}${email ? ` as ${email}` : ''} (${me.structures.length} structure(s)); saved to ${file}`);
  return 0;
}

/** Arguments of `org whoami`. */
export interface WhoamiArgs extends ConnectionFlags {
  json?: boolean;
}

/** Prints the server, where the token came from, and the structures it opens. */
export async function runWhoami(args: WhoamiArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const connection = await resolveConnection(args, deps.env);
  if (!connection.token) throw invalid(`not logged in to ${connection.url}: run  org login --url ${connection.url} --token TOKEN`);
  const me = await deps.makeClient(connection).whoami();
  const email = me.email ?? connection.email;
  if (args.json) {
    printJson(deps.output, { url: connection.url, token_source: connection.tokenSource, ...(me.kind ? { kind: me.kind } : {}), ...(email ? { email } : {}), structures: me.structures });
    return 0;
  }
  deps.output.out(`server: ${connection.url} (from ${connection.urlSource})`);
  deps.output.out(`token:  ${connection.token.slice(0, 10)}… (from ${connection.tokenSource})`);
  if (email || me.kind) deps.output.out(`as:     ${email ?? me.kind}`);
  deps.output.out('');
  printTable(
    deps.output,
    me.structures,
    [
      { header: 'structure', value: (s) => s.name },
      { header: 'role', value: (s) => s.role },
      { header: 'nodes', value: (s) => String(s.node_count) },
      { header: 'id', value: (s) => s.id },
    ],
    'no structures yet (create one with: org structures create NAME --template exec-team)',
  );
  return 0;
}

/** Registers `login` and `whoami`. */
export function registerLogin(program: Command, ctx: CommandContext): void {
  program
    .command('login')
    .description('save a server URL and token for the CLI (credentials file, mode 0600)')
    .requiredOption('--url <url>', 'server base URL, e.g. http://127.0.0.1:4780')
    .option('--token <token>', 'your token (org_u_…); env ORG_TOKEN')
    .option('--email <email>', 'the e-mail to remember with the token')
    .addHelpText('after', examples('org login --url http://127.0.0.1:4780 --token org_u_…', 'ORG_TOKEN=org_u_… org login --url https://org.example.com'))
    .action(async (flags: LoginArgs) => ctx.setExit(await runLogin(flags, { output: ctx.output, ...ctx.deps })));

  withConnection(
    program
      .command('whoami')
      .description('show the server, the token in use and the structures it opens')
      .option('--json', 'print JSON'),
  )
    .addHelpText('after', examples('org whoami', 'org whoami --url http://127.0.0.1:4780 --json'))
    .action(async (flags: WhoamiArgs) => ctx.setExit(await runWhoami(flags, { output: ctx.output, ...ctx.deps })));
}

