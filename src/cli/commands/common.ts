/** Shared pieces of the commander wiring of client commands. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CommandDeps } from '../deps.js';
import type { Output } from '../output.js';

/** What each `register*` function gets from the program. */
export interface CommandContext {
  output: Output;
  /** Sets the exit code of the process. */
  setExit: (code: number) => void;
  /** Overrides of the runners' dependencies (tests). */
  deps?: Partial<CommandDeps>;
}

/** Adds `--url` and `--token` to a command. */
export function withConnection(command: Command): Command {
  return command
    .addOption(new Option('--url <url>', 'server base URL (env ORG_URL; default: the saved login, else http://127.0.0.1:4780)'))
    .addOption(new Option('--token <token>', 'bearer token (env ORG_TOKEN; default: the token saved for the URL)'));
}

/** Adds `-s, --structure` to a command. */
export function withStructure(command: Command): Command {
  return command.option('-s, --structure <structure>', 'structure id, id prefix or name (env ORG_STRUCTURE; default: your only structure)');
}

/** Formats an examples block for `addHelpText('after', …)`. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`;
}

/** Parses a positive integer option. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return n;
}
