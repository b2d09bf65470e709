/** Wiring of `org chat`, `org history` and `org log`: talking to nodes and reading what they did. */
import type { Command } from 'commander';
import type { ChatArgs } from '../commands/chat.js';
import type { HistoryArgs, LogArgs } from '../commands/history.js';
import { collect, examples, positiveInt, run, withConnection, withStructure, type CommandContext } from './common.js';

/** Registers `chat`, `history` and `log`. */
export function registerChat(program: Command, ctx: CommandContext): void {
  withConnection(
    program
      .command('chat [structure] [role]')
      .description('chat with a node: live events in the terminal, or one message with -m for scripts')
      .option('-m, --message <text>', 'send one message, print the streamed reply and exit ("-" reads stdin)')
      .option('--json', 'with -m: print each event as one JSON line')
      .option('-a, --attach <path>', 'attach a file (repeatable; interactive: goes with the first message)', collect)
      .option('--run <run_id>', 'follow an existing run by its id or first characters (replays its events, then live)')
      .option('--follow', 'with -m or --run: also show the runs the turn delegates to other nodes, indented under each delegation'),
  )
    .addHelpText(
      'after',
      examples(
        'org chat                                  # pick the structure and node from lists',
        'org chat Demo exec-ceo',
        'org chat Demo exec-cfo -m "Close the books for March" --attach ledger.csv',
        'org chat Demo exec-cfo -m "/run-month-end-close for March" --json | jq -r .type',
        'org chat Demo exec-ceo -m "Run the month-end close" --follow   # the CFO\'s and the controller\'s work, indented',
        'echo "Summarise this week" | org chat Demo exec-ceo -m -',
      ) +
        '\n\nIn the chat: /attach PATH attaches a file to the next message, /<skill-slug> … invokes a skill,\nCtrl-C cancels the running turn and a second Ctrl-C exits. A dropped connection resumes by itself.\nWith -m, stdout carries the reply (steps, text, decisions, delegations → <node>: <task>, summary); progress goes to stderr.',
    )
    .action((structure: string | undefined, role: string | undefined, flags: ChatArgs) =>
      run(ctx, { ...flags, ...(structure ? { structure } : {}), ...(role ? { role } : {}) }, async () => (await import('../commands/chat.js')).runChat),
    );

  withConnection(program.command('history [structure] [role]').description("a node's chat history: what was asked and how each turn ended"))
    .option('-n, --limit <n>', 'how many messages (1–500, default 50)', positiveInt)
    .option('--before <message_id>', 'only messages older than this one (paging)')
    .option('--json', 'print the history messages as JSON (newest first, as the API returns them)')
    .addHelpText('after', examples('org history Demo exec-cfo', 'org history Demo exec-cfo -n 10 --json'))
    .action((structure: string | undefined, role: string | undefined, flags: HistoryArgs) =>
      run(ctx, { ...flags, ...(structure ? { structure } : {}), ...(role ? { role } : {}) }, async () => (await import('../commands/history.js')).runHistory),
    );

  withStructure(withConnection(program.command('log').description('the workspace log: decisions, milestones and delegations of every node, newest first')))
    .option('-n, --limit <n>', 'how many entries (1–500, default 50)', positiveInt)
    .option('--json', 'print JSON')
    .addHelpText('after', examples('org log', 'org log -s Demo -n 20'))
    .action((flags: LogArgs) => run(ctx, flags, async () => (await import('../commands/history.js')).runLog));
}
