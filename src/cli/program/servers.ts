/** Wiring of `org serve`, `org migrate` and `org mcp`: the commands that run org in-process. */
import type { Command } from 'commander';
import type { ServeCommandFlags } from '../commands/serve.js';
import { examples, type CommandContext } from './common.js';

/** Registers `serve`, `migrate` and `mcp`. */
export function registerServers(program: Command, ctx: CommandContext): void {
  program
    .command('serve')
    .description('run the org service on a home folder (skills/ and .org/)')
    .option('--home <dir>', 'home folder holding skills/ and .org/ (env ORG_HOME; default: current directory, or ~/.org inside the org package)')
    .option('--host <host>', 'interface to listen on (env ORG_HOST; default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 for any free port (env ORG_PORT; default 4780)')
    .option('--no-demo', 'do not create the "Demo" structure on first start')
    .option('--no-bundled', 'a new home starts with an empty skills/ instead of a copy of the bundled library')
    .option('--sync-timeout <seconds>', 'how long POST /chat/message/sync waits (default 120)')
    .option('--commit', 'commit API writes of skill files when skills/ is in a git work tree')
    .option('--smtp-port <port>', 'also accept inbound e-mail over SMTP on this port (env ORG_SMTP_PORT; needs ORG_INBOUND_SECRET)')
    .option(
      '--cors-origin <origin>',
      'allow browser apps on this origin to call the API, e.g. https://app.example.com; repeatable, * for any (env ORG_CORS_ORIGINS, comma separated; default none)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--trust-proxy <addresses>',
      'believe X-Forwarded-For from these reverse proxies (addresses, CIDR ranges or loopback), so rate limits and the audit log see the real client; repeatable (env ORG_TRUST_PROXY, comma separated; default none)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--allow-egress <what>',
      'let containers, tool URLs and webhooks be called on these addresses too: loopback, private, an address or a CIDR range (cloud metadata addresses only when named exactly); repeatable (env ORG_EGRESS_ALLOW, comma separated; default none: only public addresses)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--max-queued-turns <n>', 'turns a node may have running or waiting; more messages get 429 with Retry-After (env ORG_MAX_QUEUED_TURNS; default 20)')
    .option('--artifact-quota <MiB>', 'megabytes the artifact shelves of one structure may hold (attachments and agents\' files); past it uploads get 413/507 (env ORG_ARTIFACT_QUOTA; default 512)')
    .option('--metrics', 'serve Prometheus metrics at GET /metrics (env ORG_METRICS=1)')
    .option('--metrics-port <port>', 'serve GET /metrics on this separate port instead of the API port (env ORG_METRICS_PORT)')
    .option('--store <url>', 'keep all service state in PostgreSQL, shared by every instance naming it: postgres://user:pass@host:port/db (env ORG_STORE_URL)')
    .option('--sse-keepalive <seconds>', 'interval of the keepalive comment on event streams; lower it below a proxy\'s idle timeout (env ORG_SSE_KEEPALIVE; default 15)')
    .option('--shutdown-grace <seconds>', 'on SIGTERM, how long running turns may go on before they are closed as interrupted (env ORG_SHUTDOWN_GRACE; default 10)')
    .option('--skills-remote <url>', 'share the skill library through this git remote: each write is pushed, pushes are pulled (env ORG_SKILLS_REMOTE)')
    .option('--headers-timeout <seconds>', 'time a client has to send a request\'s headers before its connection is closed (env ORG_HEADERS_TIMEOUT; default 10)')
    .option('--request-timeout <seconds>', 'time a client has to send a whole request, body included; never cuts a streamed answer (env ORG_REQUEST_TIMEOUT; default 120)')
    .option('--max-connections <n>', 'connections held at once by all clients together (env ORG_MAX_CONNECTIONS; default 900)')
    .option('--max-connections-per-address <n>', 'connections one client address may hold at once; trusted proxies count against the total only (env ORG_MAX_CONNECTIONS_PER_ADDRESS; default 128)')
    .addHelpText(
      'after',
      examples('org serve', 'org serve --home ~/acme --port 8080', 'org serve --allow-egress loopback   # a container or tool on this machine', 'ORG_ADMIN_TOKEN=$(openssl rand -hex 24) org serve --port 0 --no-demo') +
        '\n\nOne server per home: a second org serve on the same home is refused while the first runs.',
    )
    .action(async (flags: ServeCommandFlags) => {
      // Loaded on demand: the server and the app are heavy, and other commands never need them.
      const { serveUntilSignal } = await import('../commands/serve.js');
      ctx.setExit(await serveUntilSignal(flags, ctx.output));
    });

  program
    .command('migrate')
    .description('copy the service state of a home into a PostgreSQL database (--to), or of a database into a home (--to-dir); running it again changes nothing')
    .option('--from <home|url>', 'the home folder to copy, or a postgres:// URL')
    .option('--to <url>', 'the PostgreSQL database to copy a home into: postgres://user:pass@host:port/db')
    .option('--to-dir <home>', 'the home folder to copy a database into')
    .addHelpText('after', examples('org migrate --from ~/acme --to postgres://org:secret@db:5432/org', 'org migrate --from postgres://org:secret@db:5432/org --to-dir ~/acme-copy'))
    .action(async (flags: { from?: string; to?: string; toDir?: string }) => {
      const { runMigrate } = await import('../commands/migrate.js');
      ctx.setExit(await runMigrate(flags, { output: ctx.output, ...ctx.deps }));
    });

  program
    .command('mcp')
    .description('serve the org MCP tools on stdio for one node, proxying an org server (for MCP clients that spawn a command)')
    .option('--url <url>', 'base URL of the org server (env ORG_URL), e.g. http://127.0.0.1:4780')
    .option('--key <key>', 'MCP node key org_mcp_… (env ORG_MCP_KEY)')
    .addHelpText('after', examples('org mcp --url http://127.0.0.1:4780 --key org_mcp_…'))
    .action(async (flags: { url?: string; key?: string }) => {
      const { runMcp } = await import('../commands/mcp.js');
      ctx.setExit(await runMcp(flags, ctx.output));
    });
}
