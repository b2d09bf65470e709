/**
 * What command runners depend on, injected so tests call them with fakes: where output
 * goes, the environment, the working folder, the editor, the terminal streams for Ink,
 * and how a client is made.
 */
import type { OrgClient } from '../client/index.js';
import { invalid } from '../core/errors.js';
import { clientFor, describeSource, resolveConnection, type Connection, type ConnectionFlags } from './connection.js';
import { openInEditor } from './editor.js';
import { commandLine } from './quote.js';
import { processOutput, type Output } from './output.js';
import { terminalPrompt, type Prompt } from './prompt.js';

/** Dependencies of every runner (all defaulted by {@link withDefaults}). */
export interface CommandDeps {
  /** Line output (stdout / stderr). */
  output: Output;
  /** Raw stdout writes, for streamed text without line breaks. */
  write: (chunk: string) => void;
  /** Binary stdout writes (a downloaded file sent to a pipe). */
  writeBytes: (data: Uint8Array) => void;
  env: NodeJS.ProcessEnv;
  /** Folder relative paths and the local home are taken from. */
  cwd: string;
  /** Opens a file in the user's editor and resolves when it is closed. */
  openEditor: (file: string) => Promise<void>;
  /** Terminal streams of interactive (Ink) commands. */
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** Whether stdin and stdout are a terminal (interactive commands need one). */
  interactive: boolean;
  /** Makes the client of a connection (tests may wrap it). */
  makeClient: (connection: Connection) => OrgClient;
  /** Asks the person at the terminal (only used when `interactive`). */
  prompt: Prompt;
}

/** Fills in the process defaults for what `deps` leaves out. */
export function withDefaults(deps: Partial<CommandDeps> = {}): CommandDeps {
  const output = deps.output ?? processOutput;
  const env = deps.env ?? process.env;
  const stdin = deps.stdin ?? process.stdin;
  const stdout = deps.stdout ?? process.stdout;
  return {
    output,
    // Straight to stdout when output is the process's own; a captured Output gets whole lines.
    write: deps.write ?? (output === processOutput ? (chunk) => void process.stdout.write(chunk) : lineBuffered(output)),
    writeBytes: deps.writeBytes ?? (output === processOutput ? (data) => void process.stdout.write(data) : (data) => lineBuffered(output)(`${new TextDecoder().decode(data)}\n`)),
    env,
    cwd: deps.cwd ?? process.cwd(),
    openEditor: deps.openEditor ?? ((file) => openInEditor(file, env)),
    stdin,
    stdout,
    interactive: deps.interactive ?? Boolean(process.stdin.isTTY && process.stdout.isTTY),
    makeClient: deps.makeClient ?? clientFor,
    prompt: deps.prompt ?? terminalPrompt(stdin, stdout),
  };
}

/** A `write` over a line-based output: whole lines go out as they complete. */
export function lineBuffered(output: Output): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) output.out(line);
  };
}

/**
 * Resolves the connection of a command and returns its client; fails when there is no
 * token. When `ORG_URL` points away from the CLI's default server, it says so on stderr,
 * so nobody acts on another server than they think without noticing.
 */
export async function connect(flags: ConnectionFlags, deps: CommandDeps, options: { tokenRequired?: boolean } = {}): Promise<OrgClient> {
  const connection = await resolveConnection(flags, deps.env);
  if (options.tokenRequired !== false && !connection.token) {
    throw invalid(`no token for ${connection.url}: log in with  ${commandLine('org', 'login', '--url', connection.url)}  (or set ORG_TOKEN)`);
  }
  // `--url` was just typed; ORG_URL may have been set long ago and forgotten.
  if (connection.urlSource === 'env' && connection.defaultUrl && connection.url !== connection.defaultUrl) {
    deps.output.err(`org: using ${connection.url} (from ${describeSource(connection.urlSource, 'url')}), not your default server ${connection.defaultUrl}`);
  }
  return deps.makeClient(connection);
}
