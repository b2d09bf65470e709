/**
 * Runner of `org chat [structure] [role]`: the Ink chat in a terminal, or — with `-m` —
 * one message streamed as plain text (or JSON lines) for scripts, exiting non-zero when
 * the turn ends with an error.
 */
import type { ChatStream } from '../../client/index.js';
import { invalid } from '../../core/errors.js';
import { checkAttachment, encodeAttachments } from '../attachments.js';
import type { OrgClient } from '../../client/index.js';
import { printRunTree } from '../run-tree.js';
import type { ConnectionFlags } from '../connection.js';
import { connect, withDefaults, type CommandDeps } from '../deps.js';
import { checkRunRef, findNode, findRunId, findStructure, findStructureDetail } from '../resolve.js';

/** Exit code of a turn that ended with an `error` event. */
export const EXIT_TURN_ERROR = 1;

/** Arguments of `org chat`. */
export interface ChatArgs extends ConnectionFlags {
  structure?: string;
  role?: string;
  /** The message to send non-interactively (`-` reads stdin). */
  message?: string;
  /** Print one JSON event per line. */
  json?: boolean;
  /** Files to attach (to the first message when interactive). */
  attach?: string[];
  /** Follow an existing run instead of sending a message. */
  run?: string;
  /** Also follow the runs the turn delegates to other nodes, printed indented under each delegation. */
  follow?: boolean;
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) text += String(chunk);
  return text;
}

/** Streams one run to the output (and with `--follow` the runs it delegates); resolves with the exit code. */
async function printRun(stream: ChatStream, args: ChatArgs, deps: CommandDeps, client: OrgClient, labelOf?: (roleId: string) => string | undefined): Promise<number> {
  let ended = false;
  let cancelling = false;
  const onSignal = () => {
    // First Ctrl-C cancels the turn (its error event then ends the stream); a second leaves.
    if (ended) return;
    if (cancelling) process.exit(130);
    cancelling = true;
    deps.output.err('org: cancelling the turn (Ctrl-C again to leave it running)');
    stream.cancel().catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  try {
    const failed = await printRunTree(stream, {
      sink: { output: deps.output, write: deps.write, ...(labelOf ? { labelOf } : {}) },
      ...(args.json ? { json: true } : {}),
      ...(args.follow ? { follow: (runId: string) => client.followRun(runId) } : {}),
    });
    return failed ? EXIT_TURN_ERROR : 0;
  } finally {
    ended = true;
    process.off('SIGINT', onSignal);
  }
}

/** Runs `org chat`: non-interactive with `-m`/`--run`, else the Ink app. */
export async function runChat(args: ChatArgs, partial: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(partial);
  if (args.run) checkRunRef(args.run);
  const client = await connect(args, deps);
  const attachments = await Promise.all((args.attach ?? []).map((path) => checkAttachment(path, deps.cwd)));

  if (args.run) {
    const structureId = args.structure ? (await findStructure(client, args.structure, deps.env)).id : undefined;
    return printRun(client.followRun(await findRunId(client, args.run, structureId)), args, deps, client);
  }

  if (args.message !== undefined) {
    if (!args.structure || !args.role) throw invalid('with -m, name the structure and the node: org chat STRUCTURE ROLE -m "…" (list them with: org structures show)');
    const message = args.message === '-' ? (await readStdin(deps.stdin)).trim() : args.message;
    if (!message) throw invalid('the message is empty');
    const structure = await findStructureDetail(client, args.structure, deps.env);
    const node = findNode(structure, args.role);
    const encoded = await encodeAttachments(attachments);
    const stream = await client.chat({ structure_id: structure.id, role_id: node.role_id, message, ...(encoded.length ? { attachments: encoded } : {}) });
    const labels = new Map(structure.agents.map((agent) => [agent.role_id, agent.label]));
    return printRun(stream, args, deps, client, (roleId) => labels.get(roleId));
  }

  if (!deps.interactive) throw invalid('org chat needs a terminal; for scripts send one message with: org chat STRUCTURE ROLE -m "…" [--json]');
  let code = 0;
  // Ink and the UI load only for interactive use (Ink's layout engine costs ~0.4 s at start).
  const [{ render }, { createElement }, { ChatApp }] = await Promise.all([import('ink'), import('react'), import('../ui/chat/ChatApp.js')]);
  const app = render(
    createElement(ChatApp, {
      client,
      ...(args.structure ? { structure: args.structure } : {}),
      ...(args.role ? { role: args.role } : {}),
      attachments,
      cwd: deps.cwd,
      onExit: (exit: number) => {
        code = exit;
        app.unmount();
      },
    }),
    { stdin: deps.stdin, stdout: deps.stdout, exitOnCtrlC: false },
  );
  await app.waitUntilExit();
  return code;
}
