/**
 * Shared pieces of the commander wiring. The wiring files under program/ only declare
 * commands, options and help; each action loads its runner module (commands/*.ts) when
 * it runs, so `org --version`, `org help` and every command load only what they use.
 */
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

/** A runner as the command files export them: `run<Command>(args, deps)`. */
export type Runner<A> = (args: A, deps: Partial<CommandDeps>) => Promise<number>;

/**
 * Runs a runner that is loaded on demand, with the context's dependencies, and sets the
 * exit code from its result.
 *
 * @example
 * .action((flags) => run(ctx, flags, async () => (await import('../commands/skills.js')).runSkillsList))
 */
export async function run<A>(ctx: CommandContext, args: A, load: () => Promise<Runner<A>>): Promise<void> {
  const runner = await load();
  ctx.setExit(await runner(args, { output: ctx.output, ...ctx.deps }));
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

/** Collects a repeatable option into a list. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
