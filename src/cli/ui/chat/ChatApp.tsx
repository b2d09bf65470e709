/**
 * `org chat` in the terminal: pick the structure and node (unless named), then an input
 * line and the live transcript. Ctrl-C cancels the running turn; a second Ctrl-C (or one
 * with nothing running) exits. `/attach PATH` attaches a file to the next message, any
 * other `/<slug> …` goes to the node as typed (it invokes that skill).
 */
import { Box, Static, Text } from 'ink';
import { useEffect, useRef } from 'react';
import type { Node } from '../../../client/types.js';
import { checkAttachment } from '../../attachments.js';
import { KeyboardRoot, useKeys } from '../keyboard.js';
import { editLine, EMPTY_LINE } from '../line-edit.js';
import { LineView } from '../LineView.js';
import { SelectList } from '../SelectList.js';
import { useLatestReducer } from '../useLatestReducer.js';
import { EntryView } from './EntryView.js';
import { chatReducer, initialChatState, type PendingAttachment } from './state.js';
import { useTarget, type TargetClient } from './target.js';
import { useChatSession, type ChatClient, type ChatSessionOptions } from './useChatSession.js';

/** Props of {@link ChatApp}. */
export interface ChatAppProps {
  client: ChatClient & TargetClient;
  /** Structure id, prefix or name (picked from a list when absent). */
  structure?: string;
  /** Node role id or label (picked from a list when absent). */
  role?: string;
  /** Files attached to the first message (`--attach`). */
  attachments?: readonly PendingAttachment[];
  /** Folder `/attach` paths are relative to. */
  cwd?: string;
  /** Called when the user leaves (exit code). */
  onExit: (code: number) => void;
  session?: ChatSessionOptions;
}

const HELP =
  'commands: /teach STEP; STEP … teaches the request the node asked about (or /teach on a line of its own, then one step a line, an empty line sends) · ' +
  '/attach PATH (attach a file to the next message) · /quit · /<skill-slug> … invokes a skill · ' +
  'Alt+Enter or a trailing \\ starts a new line · Ctrl-C cancels a running turn, twice exits';

/**
 * True while a lesson is typed one step a line: the line began as a lone `/teach`. Then
 * Enter starts the next line, and Enter on an empty line sends the lesson.
 */
export function inLesson(value: string): boolean {
  return /^\/teach[ \t]*(\n|$)/.test(value);
}

/** The chat screen once the node is known. */
function ChatScreen({
  client,
  target,
  attachments,
  cwd,
  onExit,
  session,
}: Omit<ChatAppProps, 'structure' | 'role'> & { target: { structureName: string; node: Node; structureId: string; labelOf?: (roleId: string) => string | undefined } }) {
  // Keys are applied to the latest state, not the one last drawn: text typed faster than
  // the screen redraws, or Enter right after a paste, acts on everything typed before it.
  const [state, dispatch, latest] = useLatestReducer(chatReducer, () =>
    chatReducer(initialChatState, { type: 'notice', text: `${target.structureName} · ${target.node.label} (${target.node.role_id})`, tone: 'title' }),
  );
  const { send, cancel } = useChatSession(client, { structureId: target.structureId, roleId: target.node.role_id }, dispatch, session);
  const preAttached = useRef(false);

  useEffect(() => {
    if (preAttached.current) return;
    preAttached.current = true;
    for (const attachment of attachments ?? []) dispatch({ type: 'attached', attachment });
  }, [attachments, dispatch]);

  /** Acts on a line the user ended with Enter. */
  const submit = (raw: string) => {
    const text = raw.trim();
    if (!text) return dispatch({ type: 'typed', line: EMPTY_LINE });
    const { run, pending } = latest();
    if (run) {
      dispatch({ type: 'typed', line: { value: raw, cursor: raw.length } }); // kept for when the turn ends
      dispatch({ type: 'notice', text: 'a turn is running: wait for it, or press Ctrl-C to cancel it', tone: 'warn' });
      return;
    }
    dispatch({ type: 'typed', line: EMPTY_LINE });
    const attach = /^\/attach(?:\s+(.+))?$/.exec(text);
    if (attach) {
      if (!attach[1]) dispatch({ type: 'notice', text: 'usage: /attach PATH', tone: 'warn' });
      else
        checkAttachment(attach[1].trim(), cwd ?? process.cwd()).then(
          (attachment) => dispatch({ type: 'attached', attachment }),
          (error: unknown) => dispatch({ type: 'notice', text: error instanceof Error ? error.message : String(error), tone: 'warn' }),
        );
      return;
    }
    if (text === '/quit' || text === '/exit') return onExit(0);
    if (text === '/help') return dispatch({ type: 'notice', text: HELP });
    void send(text, pending);
  };

  useKeys((input, key) => {
    const { run, line } = latest();
    if (key.ctrl && input === 'c') {
      if (run && !run.cancelling) void cancel();
      else onExit(run ? 130 : 0);
      return;
    }
    if (key.return && !key.meta && inLesson(line.value) && line.cursor === line.value.length && !line.value.endsWith('\n')) {
      dispatch({ type: 'typed', line: { value: `${line.value}\n`, cursor: line.value.length + 1 } });
      return;
    }
    const edit = editLine(line, input, key);
    if (edit.submitted === undefined) {
      if (edit.line !== line) dispatch({ type: 'typed', line: edit.line });
    } else submit(edit.submitted);
  });

  const settled = state.entries.slice(0, state.liveFrom);
  const live = state.entries.slice(state.liveFrom);
  return (
    <Box flexDirection="column">
      <Static items={settled}>{(entry) => <EntryView key={entry.id} entry={entry} {...(target.labelOf ? { labelOf: target.labelOf } : {})} />}</Static>
      {live.map((entry) => (
        <EntryView key={entry.id} entry={entry} {...(target.labelOf ? { labelOf: target.labelOf } : {})} />
      ))}
      <Box marginTop={1}>
        <Text color="cyan" bold>
          {target.node.role_id} ›{' '}
        </Text>
        <LineView line={state.line} placeholder={state.run ? '' : 'message, /teach, /attach PATH, /help'} />
      </Box>
      <Text dimColor>
        {state.run
          ? state.run.reconnecting
            ? `connection lost — resuming (attempt ${state.run.reconnecting})…`
            : state.run.cancelling
              ? 'cancelling… (Ctrl-C again to leave)'
              : `${target.node.label} is working… (Ctrl-C cancels)`
          : inLesson(state.line.value)
            ? 'teaching: one step a line · Enter on an empty line sends the lesson'
            : `${target.structureName} · ${target.node.label}${state.pending.length ? ` · 📎 ${state.pending.map((p) => p.name).join(', ')}` : ''} · /help · Ctrl-C exits`}
      </Text>
    </Box>
  );
}

/** The whole `org chat` app: choice of node, then the chat screen. */
export function ChatApp(props: ChatAppProps) {
  return (
    <KeyboardRoot>
      <ChatFlow {...props} />
    </KeyboardRoot>
  );
}

/** Picks the target (unless named), then shows the chat screen. */
function ChatFlow(props: ChatAppProps) {
  const { state, chooseStructure, chooseNode } = useTarget(props.client, props.structure, props.role);
  const { onExit } = props;
  useKeys(
    (input, key) => {
      if (key.ctrl && input === 'c') onExit(130);
    },
    { isActive: state.phase !== 'ready' },
  );
  useEffect(() => {
    if (state.phase === 'failed') onExit(1);
  }, [state.phase, onExit]);

  switch (state.phase) {
    case 'loading':
      return <Text dimColor>loading…</Text>;
    case 'failed':
      return <Text color="red">✖ {state.message}</Text>;
    case 'pick-structure':
      return (
        <SelectList
          key="structure"
          title="Which structure?"
          items={state.structures.map((s) => ({ label: s.name, hint: `${s.role} · ${s.node_count} node(s)`, value: s.id }))}
          onSelect={chooseStructure}
        />
      );
    case 'pick-node':
      return (
        <SelectList
          key="node"
          title={`Whom in ${state.structure.name}?`}
          items={state.structure.agents.map((n) => ({ label: n.label, hint: `${n.role_id} · ${n.state}`, value: n }))}
          onSelect={chooseNode}
        />
      );
    case 'ready':
      return (
        <Box flexDirection="column">
          <ChatScreen
            client={props.client}
            target={{
              structureName: state.structure.name,
              structureId: state.structure.id,
              node: state.node,
              labelOf: (roleId: string) => state.structure.agents.find((agent) => agent.role_id === roleId)?.label,
            }}
            {...(props.attachments ? { attachments: props.attachments } : {})}
            {...(props.cwd ? { cwd: props.cwd } : {})}
            {...(props.session ? { session: props.session } : {})}
            onExit={onExit}
          />
        </Box>
      );
  }
}
