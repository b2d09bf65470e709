/**
 * The `org` command: a commander program whose subcommands talk to a server (or, for
 * `serve` and `mcp`, run one in-process). Declaring the commands loads no runner, so
 * `org --version` and `org help` start at once; each command loads what it uses.
 * Errors become one line and an exit code; a closed pipe (`org … | head`) ends quietly.
 */
import { Command, CommanderError } from 'commander';
import { isOrgError } from '../core/errors.js';
import { processOutput, type Output } from './output.js';
import { registerCommands } from './program/index.js';
import { VERSION } from './version.js';

/** Builds the commander program; `setExit` receives the exit code of commands. */
export function buildProgram(output: Output, setExit: (code: number) => void): Command {
  const program = new Command('org')
    .description('org: agent workspaces with markdown skills, live chat and MCP')
    .version(VERSION)
    .showHelpAfterError('(org help shows the commands; org help COMMAND what a command takes)')
    .exitOverride()
    .configureOutput({ writeOut: (text) => output.out(text.trimEnd()), writeErr: (text) => output.err(text.trimEnd()) })
    .addHelpText('after', '\nFirst time? org serve in one terminal, then org chat in another. org doctor checks your setup.\nShell completion: org completion bash|zsh|fish|powershell (see org help completion).');
  registerCommands(program, { output, setExit });
  return program;
}

/** Adds `org completion <shell>` (and the hidden `org complete -- …` the scripts call), from @bomb.sh/tab. */
async function addCompletion(program: Command): Promise<void> {
  const { default: tab } = await import('@bomb.sh/tab/commander');
  tab(program, { completionCommandName: 'completion' });
  program.commands
    .find((command) => command.name() === 'completion')
    ?.addHelpText(
      'after',
      '\nEnable it in your shell:\n  bash  echo \'source <(org completion bash)\' >> ~/.bashrc\n  zsh   echo \'source <(org completion zsh)\' >> ~/.zshrc\n  fish  org completion fish > ~/.config/fish/completions/org.fish',
    );
}

/** Whether the first operand of `argv` asks for completion (only then is the completion library loaded). */
function wantsCompletion(argv: string[]): boolean {
  const first = argv.slice(2).find((arg) => !arg.startsWith('-'));
  return first === 'completion' || first === 'complete' || (first === 'help' && argv.includes('completion'));
}

/**
 * Makes writes to a closed pipe end the process quietly (exit 0), as `git log | head`
 * does: the reader has what it wanted; a stack trace would only be noise.
 */
export function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream, exit: (code: number) => void = (code) => process.exit(code)): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') exit(0);
    else throw error;
  });
}

/** Commander's codes for output that is an answer, not an error. */
const DISPLAYED = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/** Runs the CLI with `argv` (as in process.argv); resolves with the exit code. */
export async function main(argv: string[], output: Output = processOutput): Promise<number> {
  let code = 0;
  const program = buildProgram(output, (exit) => {
    code = exit;
  });
  try {
    if (wantsCompletion(argv)) await addCompletion(program);
    await program.parseAsync(argv);
    return code;
  } catch (error) {
    // Help and the version are answers (0); every other commander error is a usage error (2).
    if (error instanceof CommanderError) return error.exitCode === 0 || DISPLAYED.has(error.code) ? 0 : 2;
    if (isOrgError(error)) {
      output.err(`org: ${error.message}`);
      return error.exitCode;
    }
    const err = error as NodeJS.ErrnoException;
    if (err.code === 'EPIPE') return 0;
    if (err.code === 'EADDRINUSE') {
      output.err(`org: the port is already in use; choose another with --port (or --port 0 for any free port)`);
      return 1;
    }
    output.err(`org: ${err.message ?? String(error)}`);
    return 1;
  }
}
