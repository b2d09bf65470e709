/**
 * The `org` command: a commander program whose subcommands talk to a server (or, for
 * `serve` and `mcp`, run one in-process). Errors become a message and an exit code.
 */
import { Command, CommanderError } from 'commander';
import type { ServeFlags } from '../core/config.js';
import { isOrgError } from '../core/errors.js';
import { registerClientCommands } from './commands/index.js';
import { processOutput, type Output } from './output.js';
import { VERSION } from './version.js';

/** Builds the commander program; `exit` receives the exit code of long-running commands. */
export function buildProgram(output: Output, setExit: (code: number) => void): Command {
  const program = new Command('org')
    .description('org: agent workspaces with markdown skills, live chat and MCP')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (text) => output.out(text.trimEnd()), writeErr: (text) => output.err(text.trimEnd()) });

  program
    .command('serve')
    .description('run the org service on a home folder (skills/ and .org/)')
    .option('--home <dir>', 'home folder holding skills/ and .org/ (env ORG_HOME; default: current directory)')
    .option('--host <host>', 'interface to listen on (env ORG_HOST; default 127.0.0.1)')
    .option('--port <port>', 'port to listen on, 0 for any free port (env ORG_PORT; default 4780)')
    .option('--no-demo', 'do not create the "Demo" structure on first start')
    .option('--sync-timeout <seconds>', 'how long POST /chat/message/sync waits (default 120)')
    .option('--commit', 'commit API writes of skill files when skills/ is in a git work tree')
    .option('--smtp-port <port>', 'also accept inbound e-mail over SMTP on this port (env ORG_SMTP_PORT; needs ORG_INBOUND_SECRET)')
    .option(
      '--cors-origin <origin>',
      'allow browser apps on this origin to call the API, e.g. https://app.example.com; repeatable, * for any (env ORG_CORS_ORIGINS, comma separated; default none)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--metrics', 'serve Prometheus metrics at GET /metrics (env ORG_METRICS=1)')
    .option('--metrics-port <port>', 'serve GET /metrics on this separate port instead of the API port (env ORG_METRICS_PORT)')
    .option('--store <url>', 'keep all service state in PostgreSQL, shared by every instance naming it: postgres://user:pass@host:port/db (env ORG_STORE_URL)')
    .option('--sse-keepalive <seconds>', 'interval of the keepalive comment on event streams; lower it below a proxy\'s idle timeout (env ORG_SSE_KEEPALIVE; default 15)')
    .option('--skills-remote <url>', 'share the skill library through this git remote: each write is pushed, pushes are pulled (env ORG_SKILLS_REMOTE)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ org serve\n  $ org serve --home ~/acme --port 8080\n  $ ORG_ADMIN_TOKEN=$(openssl rand -hex 24) org serve --port 0 --no-demo',
    )
    .action(async (flags: ServeFlags) => {
      // Loaded on demand: the server and the app are heavy, and other commands never need them.
      const { serveUntilSignal } = await import('./commands/serve.js');
      setExit(await serveUntilSignal(flags, output));
    });

  program
    .command('mcp')
    .description('serve the org MCP tools on stdio for one node, proxying an org server (for MCP clients that spawn a command)')
    .option('--url <url>', 'base URL of the org server (env ORG_URL), e.g. http://127.0.0.1:4780')
    .option('--key <key>', 'MCP node key org_mcp_… (env ORG_MCP_KEY)')
    .addHelpText('after', '\nExample:\n  $ org mcp --url http://127.0.0.1:4780 --key org_mcp_…')
    .action(async (flags: { url?: string; key?: string }) => {
      const { runMcp } = await import('./commands/mcp.js');
      setExit(await runMcp(flags, output));
    });

  registerClientCommands(program, { output, setExit });

  return program;
}

/** Runs the CLI with `argv` (as in process.argv); resolves with the exit code. */
export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  let code = 0;
  const program = buildProgram(output, (exit) => {
    code = exit;
  });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (isOrgError(error)) {
      output.err(`org: ${error.message}`);
      return error.exitCode;
    }
    const err = error as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE') {
      output.err(`org: the port is already in use; choose another with --port (or --port 0 for any free port)`);
      return 1;
    }
    output.err(`org: ${err.message ?? String(error)}`);
    return 1;
  }
}
