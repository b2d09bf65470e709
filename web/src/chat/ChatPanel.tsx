/**
 * The chat panel of the selected node: history (newest at the bottom, older pages on
 * request) with who wrote each message, the live turn rendered per event type, a message
 * box with attachments (Alt+M from anywhere; an unsent message survives a sign-out or a
 * reload), Stop while a turn runs, and each finished reply announced to screen readers.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { nodePath } from '../api/client';
import { useSession } from '../api/context';
import type { Me } from '../api/context';
import type { HistoryMessage, OrgNode } from '../api/types';
import { formatSize, formatTime } from '../ui/format';
import { Empty, ErrorNote } from '../ui/Notice';
import { EventList } from './EventList';
import { authorName } from './authors';
import { DelegatedBy } from './DelegatedBy';
import { clearDraft, loadDraft, saveDraft } from './drafts';
import { fileToAttachment, useChat, type Attachment } from './useChat';

const MAX_FILES = 10;
const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Props of {@link ChatPanel}. */
export interface ChatPanelProps {
  structureId: string;
  node: OrgNode;
  canChat: boolean;
  /** A turn to scroll to and focus once it is loaded (the shelf's run links). */
  showRun?: string | null;
  onRunShown?: () => void;
  /** A turn of this node started (a message was accepted) or ended: the page shows the node's state at once. */
  onActivity?: (running: boolean) => void;
  /** The structure's nodes with their live states (delegations name them and show how they go). */
  nodes?: readonly OrgNode[];
}

/** Chat with one node. */
export function ChatPanel({ structureId, node, canChat, showRun, onRunShown, onActivity, nodes }: ChatPanelProps) {
  const { api, me } = useSession();
  const chat = useChat(api, structureId, node.role_id, onActivity ? { onActivity } : {});
  const viewer = me.user?.email;
  const draftKey = { structureId, roleId: node.role_id, userId: me.user?.id ?? me.kind };
  const [text, setTextState] = useState(() => loadDraft(draftKey));
  const setText = (value: string) => {
    setTextState(value);
    saveDraft(draftKey, value);
  };
  const announced = useAnnouncements(chat.messages, node.label);
  const [files, setFiles] = useState<Attachment[]>([]);
  const [fileError, setFileError] = useState<string | null>(null);
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const logRef = useRef<HTMLDivElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const stick = useRef(true);
  const olderLoad = useRef<number | null>(null);

  // A turn started elsewhere (another tab, MCP, e-mail) shows up when the node turns working.
  const lastState = useRef(node.state);
  useEffect(() => {
    if (node.state !== lastState.current && !chat.activeRunId && !chat.sending) void chat.refresh();
    lastState.current = node.state;
  }, [node.state, chat]);

  // Newest at the bottom: follow new events while the reader is at the bottom.
  useLayoutEffect(() => {
    const log = logRef.current;
    if (!log) return;
    if (olderLoad.current !== null) {
      log.scrollTop = log.scrollHeight - olderLoad.current;
      olderLoad.current = null;
    } else if (stick.current) {
      log.scrollTop = log.scrollHeight;
    }
  }, [chat.messages]);

  useEffect(() => {
    if (!showRun) return;
    const turn = document.getElementById(runAnchor(showRun));
    if (!turn) return; // not loaded yet: the next change of the messages tries again
    stick.current = false;
    turn.scrollIntoView({ block: 'center' });
    turn.focus({ preventScroll: true });
    onRunShown?.();
  }, [showRun, chat.messages, onRunShown]);

  const addFiles = async (list: FileList | null) => {
    setFileError(null);
    if (!list) return;
    const picked = [...list];
    if (files.length + picked.length > MAX_FILES) {
      setFileError(`At most ${MAX_FILES} attachments per message.`);
      return;
    }
    const large = picked.find((file) => file.size > MAX_FILE_BYTES);
    if (large) {
      setFileError(`${large.name} is ${formatSize(large.size)}; attachments can be at most 10 MiB.`);
      return;
    }
    const read = await Promise.all(picked.map(fileToAttachment));
    setFiles((current) => [...current, ...read]);
  };

  const submit = async () => {
    const message = text.trim();
    if (!message || chat.sending) return;
    stick.current = true;
    setTextState('');
    const attachments = files;
    setFiles([]);
    const ok = await chat.send(message, attachments);
    if (ok) clearDraft(draftKey);
    else {
      // Refused before the server took it: the message is offered again, as it was.
      setTextState(message);
      setFiles(attachments);
    }
  };

  // Alt+M from anywhere on the page: to the message box.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!event.altKey || event.ctrlKey || event.metaKey || event.code !== 'KeyM') return;
      const box = document.getElementById('chat-input');
      if (!box) return;
      event.preventDefault();
      box.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const download = (name: string) => {
    setDownloadError(null);
    api.download(`${nodePath(structureId, node.role_id)}/artifacts/${encodeURIComponent(name)}`, name).catch((failure: unknown) => setDownloadError(failure));
  };

  const running = chat.activeRunId !== null;
  return (
    <section className="chat" aria-label={`Chat with ${node.label}`}>
      <div
        className="chat-log"
        ref={logRef}
        tabIndex={0}
        role="region"
        aria-label="Conversation"
        onScroll={(event) => {
          const log = event.currentTarget;
          stick.current = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
        }}
      >
        {chat.hasMore ? (
          <div className="chat-older">
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                olderLoad.current = logRef.current ? logRef.current.scrollHeight - logRef.current.scrollTop : null;
                void chat.loadOlder();
              }}
            >
              Load older messages
            </button>
          </div>
        ) : null}
        {chat.loading ? <p className="muted chat-empty">Loading the conversation…</p> : null}
        {!chat.loading && chat.messages.length === 0 ? <Empty>No messages yet. Ask {node.label} for something.</Empty> : null}
        {chat.messages.map((message) =>
          message.sender === 'user' ? (
            <UserMessage key={message.id} message={message} me={me} structureId={structureId} nodes={nodes} />
          ) : (
            <AgentMessage key={message.id} message={message} node={node} structureId={structureId} onDownload={download} viewer={viewer} nodes={nodes} />
          ),
        )}
      </div>
      <div className="sr-only" role="status" aria-live="polite" data-testid="chat-announcer">
        {announced}
      </div>
      <ErrorNote error={chat.error} onDismiss={chat.clearError} />
      <ErrorNote error={downloadError} onDismiss={() => setDownloadError(null)} />
      {canChat ? (
        <form
          className="chat-compose"
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <label className="sr-only" htmlFor="chat-input">
            Message to {node.label}
          </label>
          <textarea
            id="chat-input"
            name="message"
            rows={3}
            value={text}
            maxLength={100_000}
            aria-keyshortcuts="Alt+M"
            placeholder={`Message ${node.label}… (Enter sends, Shift+Enter adds a line, Alt+M comes here)`}
            onChange={(event) => setText(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
                event.preventDefault();
                void submit();
              }
            }}
          />
          {files.length > 0 ? (
            <ul className="chips" aria-label="Attachments">
              {files.map((file, index) => (
                <li key={`${file.name}:${index}`} className="chip">
                  {file.name} <span className="muted">{formatSize(file.size)}</span>
                  <button type="button" className="btn-icon" aria-label={`Remove ${file.name}`} onClick={() => setFiles((current) => current.filter((_, at) => at !== index))}>
                    ×
                  </button>
                </li>
              ))}
            </ul>
          ) : null}
          {fileError ? (
            <p className="field-error" role="alert">
              {fileError}
            </p>
          ) : null}
          <div className="compose-actions">
            <input
              ref={fileRef}
              type="file"
              multiple
              className="sr-only"
              tabIndex={-1}
              aria-hidden="true"
              data-testid="chat-files"
              onChange={(event) => {
                void addFiles(event.target.files);
                event.target.value = '';
              }}
            />
            <button type="button" className="btn btn-small" onClick={() => fileRef.current?.click()}>
              Attach files
            </button>
            <span className="grow" />
            {running ? (
              <button type="button" className="btn btn-small btn-danger" onClick={() => void chat.stop()}>
                ■ Stop
              </button>
            ) : null}
            <button type="submit" className="btn btn-small btn-primary" disabled={!text.trim() || chat.sending}>
              {chat.sending ? 'Sending…' : 'Send'}
            </button>
          </div>
        </form>
      ) : (
        <p className="hint chat-readonly">Viewers can read the conversation; chatting needs the operator or owner role.</p>
      )}
    </section>
  );
}

/**
 * The latest finished reply in a sentence for screen readers ("<node> replied: <summary>"),
 * once per reply that finished while the chat was open (history loaded at first is not read out).
 */
function useAnnouncements(messages: readonly HistoryMessage[], label: string): string {
  const [text, setText] = useState('');
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    const finished = messages.filter((message) => message.sender === 'agent' && message.status !== 'running');
    if (seen.current === null) {
      // Wait for the first page: what it holds was there before.
      if (messages.length === 0) return;
      seen.current = new Set(finished.map((message) => message.run_id));
      return;
    }
    for (const message of finished) {
      if (seen.current.has(message.run_id)) continue;
      seen.current.add(message.run_id);
      const last = message.events.at(-1);
      const outcome = message.status === 'complete' ? `${label} replied: ${message.summary ?? 'done'}` : `${label}'s turn ended: ${last?.type === 'error' ? last.content.message : 'error'}`;
      setText(outcome);
    }
  }, [messages, label]);
  return text;
}

function UserMessage({ message, me, structureId, nodes }: { message: HistoryMessage; me: Me; structureId: string; nodes?: readonly OrgNode[] | undefined }) {
  return (
    <article className={`msg msg-user${message.delegated_by ? ' msg-delegated' : ''}`}>
      <header className="msg-head">
        <span className="msg-who">{authorName(message, me)}</span>
        <time dateTime={message.created_at}>{formatTime(message.created_at)}</time>
      </header>
      {message.delegated_by ? <DelegatedBy by={message.delegated_by} structureId={structureId} nodes={nodes} /> : null}
      <p className="msg-text">{message.text}</p>
      {message.attachments.length > 0 ? (
        <ul className="chips">
          {message.attachments.map((attachment) => (
            <li key={attachment.name} className="chip">
              {attachment.name} <span className="muted">{formatSize(attachment.size)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}

/** The id of a turn's agent message on the page (the shelf links to it). */
export const runAnchor = (runId: string) => `run-${runId}`;

/** A finished turn that was stopped on purpose reads "stopped", not "error". */
function statusOf(message: HistoryMessage): string {
  const last = message.events.at(-1);
  return message.status === 'error' && last?.type === 'error' && last.content.message === 'cancelled' ? 'stopped' : message.status;
}

interface AgentMessageProps {
  message: HistoryMessage;
  node: OrgNode;
  structureId: string;
  onDownload: (name: string) => void;
  viewer: string | undefined;
  nodes?: readonly OrgNode[] | undefined;
}

function AgentMessage({ message, node, structureId, onDownload, viewer, nodes }: AgentMessageProps) {
  const running = message.status === 'running';
  const status = statusOf(message);
  return (
    <article className={`msg msg-agent msg-${status}`} aria-busy={running} id={runAnchor(message.run_id)} tabIndex={-1}>
      <header className="msg-head">
        <span className="msg-who">{node.label}</span>
        <span className={`status status-${status}`}>{running ? 'working…' : status}</span>
        <time dateTime={message.created_at}>{formatTime(message.created_at)}</time>
      </header>
      <EventList events={message.events} structureId={structureId} running={running} onDownload={onDownload} viewer={viewer} nodes={nodes} roleId={node.role_id} />
      {running ? (
        <div className="typing" aria-label="The agent is working">
          <span />
          <span />
          <span />
        </div>
      ) : null}
    </article>
  );
}
