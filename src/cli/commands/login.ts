/**
 * Runners of `org login` and `org whoami`: save a server's token (asking for what the
 * flags leave out when a person is at the terminal), and show who the CLI talks as.
 */
import { readCredentials, saveLogin } from '../../core/credentials.js';
import { invalid } from '../../core/errors.js';
import { configDirOf, DEFAULT_URL, describeSource, normalizeUrl, resolveConnection, type ConnectionFlags } from '../connection.js';
import { withDefaults, type CommandDeps } from '../deps.js';
import { printJson, printRows } from '../format.js';
import { commandLine } from '../quote.js';

/** Arguments of `org login`. */
export interface LoginArgs {
  url?: string;
  token?: string;
  email?: string;
}

/** The URL and token to log in with: flags, then the environment, then (in a terminal) the person's answers. */
async function loginTarget(args: LoginArgs, deps: CommandDeps): Promise<{ url: string; token: string }> {
  const credentials = await readCredentials(configDirOf(deps.env));
  let raw = args.url ?? deps.env.ORG_URL;
  if (!raw) {
    if (!deps.interactive) throw invalid(`give the server with --url, e.g. ${commandLine('org', 'login', '--url', DEFAULT_URL)}`);
    const suggested = credentials.default ?? DEFAULT_URL;
    raw = (await deps.prompt(`Server URL [${suggested}]: `)) || suggested;
  }
  const url = normalizeUrl(raw);
  let token = args.token ?? deps.env.ORG_TOKEN;
  if (!token) {
    const saved = credentials.servers[url]?.token;
    if (!deps.interactive) {
      if (saved) return { url, token: saved };
      throw invalid(`give the token with --token, e.g. ${commandLine('org', 'login', '--url', url)} --token org_u_…`);
    }
    const answer = await deps.prompt(saved ? 'Token (Enter keeps the saved one): ' : 'Token (org_u_…, shown by the first org serve or org users add): ', { secret: true });
    token = answer || saved;
    if (!token) throw invalid('no token given; nothing was saved');
  }
  return { url, token };
}

/** Checks the token against the server, then saves it for the URL and makes that URL the CLI's default. */
export async function runLogin(args: LoginArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const { url, token } = await loginTarget(args, deps);
  const client = deps.makeClient({ url, token, urlSource: 'flag', tokenSource: 'flag' });
  const me = await client.whoami();
  const email = args.email ?? me.email;
  const file = await saveLogin(configDirOf(deps.env), url, { token, ...(email ? { email } : {}) });
  deps.output.out(`logged in to ${url}${email ? ` as ${email}` : ''} (${me.structures.length} structure(s)); it is now the CLI's default server. Saved to ${file}`);
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
  if (!connection.token) throw invalid(`not logged in to ${connection.url}: run  ${commandLine('org', 'login', '--url', connection.url)}`);
  const me = await deps.makeClient(connection).whoami();
  const email = me.email ?? connection.email;
  if (args.json) {
    printJson(deps.output, { url: connection.url, url_source: connection.urlSource, token_source: connection.tokenSource, default_url: connection.defaultUrl, kind: me.kind, ...(email ? { email } : {}), structures: me.structures });
    return 0;
  }
  deps.output.out(`server: ${connection.url} (from ${describeSource(connection.urlSource, 'url')}${connection.defaultUrl && connection.defaultUrl !== connection.url ? `; your default is ${connection.defaultUrl}` : ''})`);
  deps.output.out(`token:  ${connection.token.slice(0, 10)}… (from ${describeSource(connection.tokenSource, 'token')})`);
  deps.output.out(`as:     ${email ?? (me.kind === 'admin' ? 'the instance administrator' : me.kind)}`);
  deps.output.out('');
  printRows(deps.output, me.structures, {
    columns: [
      { header: 'structure', value: (s) => s.name },
      { header: 'role', value: (s) => s.role },
      { header: 'nodes', value: (s) => String(s.node_count) },
      { header: 'id', value: (s) => s.id },
    ],
    empty: `no structures yet (create one with: ${commandLine('org', 'structures', 'create', 'My team', '--template', 'exec-team')})`,
  });
  return 0;
}

/** Arguments of `org token rotate`. */
export interface TokenRotateArgs extends ConnectionFlags {
  json?: boolean;
}

/**
 * Replaces the caller's token with a new one. Where the old token was saved for this
 * server, the new one takes its place; otherwise (a token from --token or ORG_TOKEN) it
 * is printed once, for the person to put where the old one was.
 */
export async function runTokenRotate(args: TokenRotateArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  const connection = await resolveConnection(args, deps.env);
  if (!connection.token) throw invalid(`not logged in to ${connection.url}: run  ${commandLine('org', 'login', '--url', connection.url)}`);
  const configDir = configDirOf(deps.env);
  const saved = (await readCredentials(configDir)).servers[connection.url];
  const rotated = await deps.makeClient(connection).rotateToken();
  // Saved as soon as it is known: the old token no longer works.
  const file = saved?.token === connection.token ? await saveLogin(configDir, connection.url, { token: rotated.token, email: rotated.user.email }, { makeDefault: false }) : undefined;
  if (args.json) {
    printJson(deps.output, { ...rotated, saved_to: file ?? null });
    return 0;
  }
  if (file) {
    deps.output.out(`new token for ${rotated.user.email} saved to ${file}; the old one no longer works.`);
    return 0;
  }
  deps.output.out(`new token for ${rotated.user.email}:`);
  deps.output.out('');
  deps.output.out(`  ${rotated.token}`);
  deps.output.out('');
  deps.output.err(`warning: this token is shown only once, and the old one no longer works: put it where the old one was (${connection.tokenSource === 'env' ? 'ORG_TOKEN' : '--token'}).`);
  return 0;
}
