/**
 * The chat of one node: loads history (newest page, older pages on request), sends
 * messages and reads the live stream, resumes a running turn after a reload, and cancels.
 * Streams are the shared client's (`openChatStream`, `followRun`): one SSE reading loop
 * and one reconnect policy (Last-Event-ID after a dropped connection, no event shown
 * twice or skipped) for the CLI, the MCP bridge and the browser.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { cancelRun, followRun, openChatStream, type ChatStream } from '../../../src/client/stream.js';
import { isTerminal } from '../../../src/core/chat/types.js';
import { isOrgError } from '../../../src/core/errors.js';
import { apiFailure, type Api } from '../api/client';
import type { HistoryMessage } from '../api/types';
import { chatReducer, initialChat } from './reducer';

const PAGE = 30;
/**
 * Reconnections of a stream before the page takes over (its own recovery then reads the
 * history until the server answers, and picks the turn up again): short, so the page says
 * soon that the connection is lost.
 */
const STREAM = { maxReconnects: 4 } as const;

/** A file picked for sending. */
export interface Attachment {
  name: string;
  content_type: string;
  content_base64: string;
  size: number;
}

/** Reads a file as base64. */
export async function fileToAttachment(file: File): Promise<Attachment> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return { name: file.name, content_type: file.type || 'application/octet-stream', content_base64: btoa(binary), size: file.size };
}

/** The chat hook's result. */
export interface Chat {
  messages: HistoryMessage[];
  hasMore: boolean;
  loading: boolean;
  error: unknown;
  clearError: () => void;
  /** The run being followed live, if any. */
  activeRunId: string | null;
  sending: boolean;
  send: (message: string, attachments: Attachment[]) => Promise<boolean>;
  stop: () => Promise<void>;
  loadOlder: () => Promise<void>;
  /** Re-reads the newest page (e.g. when the node starts working from elsewhere). */
  refresh: () => Promise<void>;
}

/** What the page hears from the chat. */
export interface ChatHooks {
  /** A turn of this chat started (true: the message was accepted) or ended (false). */
  onActivity?: (running: boolean) => void;
}

/** The first pause before trying again to reach a server that did not answer; doubled up to {@link RECOVER_MAX_MS}. */
const RECOVER_FIRST_MS = 1_000;
const RECOVER_MAX_MS = 15_000;

/** Chat state and actions for a node. */
export function useChat(api: Api, structureId: string, roleId: string, hooks: ChatHooks = {}): Chat {
  const [state, dispatch] = useReducer(chatReducer, initialChat);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [activeRunId, setActiveRunId] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  /** Runs being followed (one stream per run, whoever asks). */
  const following = useRef(new Set<string>());
  const controller = useRef(new AbortController());
  const stateRef = useRef(state);
  stateRef.current = state;
  const hooksRef = useRef(hooks);
  hooksRef.current = hooks;
  const onStarted = useCallback(() => hooksRef.current.onActivity?.(true), []);
  /** Tries again until the server answers (and whenever the browser comes back online); see `recover`. */
  const refreshRef = useRef<() => Promise<void>>(() => Promise.resolve());
  const recovering = useRef(false);
  const recover = useCallback(() => {
    if (recovering.current) return;
    recovering.current = true;
    const signal = controller.current.signal;
    let delay = RECOVER_FIRST_MS;
    let timer = 0;
    const stop = () => {
      window.clearTimeout(timer);
      window.removeEventListener('online', attempt);
      recovering.current = false;
    };
    function attempt() {
      window.clearTimeout(timer);
      if (signal.aborted) return stop();
      refreshRef.current().then(
        () => {
          stop();
          setError(null);
        },
        () => {
          delay = Math.min(delay * 2, RECOVER_MAX_MS);
          timer = window.setTimeout(attempt, delay);
        },
      );
    }
    window.addEventListener('online', attempt);
    signal.addEventListener('abort', stop, { once: true });
    timer = window.setTimeout(attempt, delay);
  }, []);

  const historyPath = '/api/org/chat/history';
  const fetchPage = useCallback(
    (before?: string) =>
      api.get<HistoryMessage[]>(historyPath, { query: { structure_id: structureId, role_id: roleId, limit: PAGE, before }, signal: controller.current.signal }),
    [api, structureId, roleId],
  );

  /**
   * Shows a run's events until its terminal event; the shared stream reconnects by itself
   * after a drop. True when the server ended the stream but not the turn.
   */
  const follow = useCallback(async (stream: ChatStream): Promise<boolean> => {
    const { runId } = stream;
    if (following.current.has(runId)) {
      stream.close();
      return false;
    }
    following.current.add(runId);
    setActiveRunId(runId);
    const signal = controller.current.signal;
    try {
      for await (const { seq, event } of stream) {
        // An error without a sequence number ends this stream, not the turn (a replaced
        // token, a revoked key): the turn goes on, so it is said above the chat instead.
        if (seq === undefined && event.type === 'error') {
          setError(new Error(`${event.content.message}. The turn goes on: reload the page to follow it.`));
          return true;
        }
        dispatch({ type: 'event', runId, event });
        if (isTerminal(event)) hooksRef.current.onActivity?.(false);
      }
      return false;
    } catch (failure) {
      if (signal.aborted) return false;
      // The stream's retries ran out: the turn goes on on the server, a reload picks it up.
      const lost = isOrgError(failure) && failure.extra?.run_id === runId;
      setError(lost ? new Error('The connection to the running turn was lost; it is picked up again as soon as the server answers.') : apiFailure(failure));
      if (lost || apiFailure(failure) instanceof TypeError) recover();
      return true;
    } finally {
      following.current.delete(runId);
      if (!signal.aborted) setActiveRunId((current) => (current === runId ? null : current));
    }
  }, [recover]);

  /** Loads the newest page and resumes its running turn, if any. */
  const refresh = useCallback(
    async (replace = false) => {
      const page = await fetchPage();
      dispatch({ type: 'newest', page, limit: PAGE, replace });
      const running = page.find((message) => message.sender === 'agent' && message.status === 'running');
      if (running && !following.current.has(running.run_id)) {
        // The page holds the run's events so far: the server sends only what follows them.
        void follow(followRun(api.transport, running.run_id, running.events.length, { ...STREAM, signal: controller.current.signal }));
      }
    },
    [api, fetchPage, follow],
  );
  refreshRef.current = refresh;

  useEffect(() => {
    controller.current = new AbortController();
    following.current.clear();
    dispatch({ type: 'reset' });
    setError(null);
    setActiveRunId(null);
    setLoading(true);
    refresh(true).then(
      () => setLoading(false),
      (failure: unknown) => {
        if (controller.current.signal.aborted) return;
        setError(failure);
        setLoading(false);
        if (failure instanceof TypeError) recover();
      },
    );
    return () => controller.current.abort();
  }, [refresh, recover]);

  const send = useCallback(
    async (message: string, attachments: Attachment[]) => {
      setSending(true);
      setError(null);
      let sent = false;
      try {
        const body = {
          structure_id: structureId,
          role_id: roleId,
          message,
          ...(attachments.length > 0 ? { attachments: attachments.map(({ name, content_type, content_base64 }) => ({ name, content_type, content_base64 })) } : {}),
        };
        const stream = await openChatStream(api.transport, body, { ...STREAM, signal: controller.current.signal });
        // From here the server has the message: it is never offered again, whatever happens to the connection.
        sent = true;
        onStarted?.();
        const runId = stream.runId;
        const now = new Date().toISOString();
        const base = { run_id: runId, created_at: now, completed_at: null, summary: null, artifacts: [] };
        dispatch({
          type: 'sent',
          user: { ...base, id: `local-user-${runId}`, sender: 'user', text: message, attachments: attachments.map(({ name, content_type, size }) => ({ name, content_type, size })), events: [], status: 'complete' },
          agent: { ...base, id: `local-agent-${runId}`, sender: 'agent', text: '', attachments: [], events: [], status: 'running' },
        });
        setSending(false);
        // A stream the server ended (this token was replaced): no request with the token.
        const ended = await follow(stream);
        if (!controller.current.signal.aborted && !ended) await refresh().catch(recover);
        return true;
      } catch (failure) {
        if (!controller.current.signal.aborted) setError(apiFailure(failure));
        return sent;
      } finally {
        setSending(false);
      }
    },
    [api, structureId, roleId, follow, refresh, recover, onStarted],
  );

  const stop = useCallback(async () => {
    if (!activeRunId) return;
    try {
      // A run that finished meanwhile (409) is no error: the stream shows how it ended.
      await cancelRun(api.transport, activeRunId);
    } catch (failure) {
      setError(apiFailure(failure));
    }
  }, [api, activeRunId]);

  const loadOlder = useCallback(async () => {
    const oldest = stateRef.current.messages.find((message) => !message.id.startsWith('local-'));
    if (!oldest) return;
    try {
      const page = await fetchPage(oldest.id);
      dispatch({ type: 'older', page, limit: PAGE });
    } catch (failure) {
      setError(failure);
    }
  }, [fetchPage]);

  return {
    messages: state.messages,
    hasMore: state.hasMore,
    loading,
    error,
    clearError: () => setError(null),
    activeRunId,
    sending,
    send,
    stop,
    loadOlder,
    refresh: () => refresh().catch((failure: unknown) => setError(failure)),
  };
}

