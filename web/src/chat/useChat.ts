/**
 * The chat of one node: loads history (newest page, older pages on request), sends
 * messages and reads the live stream, resumes a running turn after a reload or a
 * dropped connection (GET runs/{id}/events with Last-Event-ID), and cancels.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { ApiError, type Api } from '../api/client';
import { readChatStream } from '../api/sse';
import type { HistoryMessage } from '../api/types';
import { chatReducer, initialChat } from './reducer';

const PAGE = 30;

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

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

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

/** Chat state and actions for a node. */
export function useChat(api: Api, structureId: string, roleId: string): Chat {
  const [state, dispatch] = useReducer(chatReducer, initialChat);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [activeRunId, setActiveRunId] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  /** Events seen per run (the SSE id of the last one): the Last-Event-ID to resume from. */
  const seen = useRef(new Map<string, number>());
  const following = useRef(new Set<string>());
  const controller = useRef(new AbortController());
  const stateRef = useRef(state);
  stateRef.current = state;

  const historyPath = '/api/org/chat/history';
  const fetchPage = useCallback(
    (before?: string) =>
      api.get<HistoryMessage[]>(historyPath, { query: { structure_id: structureId, role_id: roleId, limit: PAGE, before }, signal: controller.current.signal }),
    [api, structureId, roleId],
  );

  /** Follows a run until its terminal event, reconnecting with Last-Event-ID when the connection drops. */
  const follow = useCallback(
    async (runId: string, first?: Response) => {
      if (following.current.has(runId)) {
        first?.body?.cancel().catch(() => undefined);
        return;
      }
      following.current.add(runId);
      setActiveRunId(runId);
      const signal = controller.current.signal;
      let response = first;
      let failures = 0;
      try {
        while (!signal.aborted) {
          try {
            response ??= await api.raw('GET', `/api/org/chat/runs/${encodeURIComponent(runId)}/events`, {
              headers: { accept: 'text/event-stream', 'last-event-id': String(seen.current.get(runId) ?? 0) },
              signal,
            });
            const current = response;
            response = undefined;
            const result = await readChatStream(current, (event, seq) => {
              const count = seen.current.get(runId) ?? 0;
              if (seq !== undefined && seq <= count) return; // already shown
              seen.current.set(runId, seq ?? count + 1);
              dispatch({ type: 'event', runId, event });
            });
            if (result.terminal) return;
            failures = 0;
          } catch (failure) {
            if (signal.aborted) return;
            if (failure instanceof ApiError && failure.status >= 400 && failure.status < 500 && failure.status !== 429) {
              setError(failure);
              return;
            }
            if (++failures > 10) {
              setError(new Error('The connection to the running turn was lost; reload the page to pick it up again.'));
              return;
            }
          }
          // The connection dropped before the end of the turn: pick it up where it left off.
          await sleep(Math.min(500 * 2 ** failures, 5000), signal);
        }
      } finally {
        following.current.delete(runId);
        if (!signal.aborted) setActiveRunId((current) => (current === runId ? null : current));
      }
    },
    [api],
  );

  /** Loads the newest page and resumes its running turn, if any. */
  const refresh = useCallback(
    async (replace = false) => {
      const page = await fetchPage();
      dispatch({ type: 'newest', page, limit: PAGE, replace });
      const running = page.find((message) => message.sender === 'agent' && message.status === 'running');
      if (running && !following.current.has(running.run_id)) {
        seen.current.set(running.run_id, running.events.length);
        void follow(running.run_id);
      }
    },
    [fetchPage, follow],
  );

  useEffect(() => {
    controller.current = new AbortController();
    seen.current.clear();
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
      },
    );
    return () => controller.current.abort();
  }, [refresh]);

  const send = useCallback(
    async (message: string, attachments: Attachment[]) => {
      setSending(true);
      setError(null);
      try {
        const response = await api.raw('POST', '/api/org/chat/message', {
          body: {
            structure_id: structureId,
            role_id: roleId,
            message,
            ...(attachments.length > 0 ? { attachments: attachments.map(({ name, content_type, content_base64 }) => ({ name, content_type, content_base64 })) } : {}),
          },
          headers: { accept: 'text/event-stream' },
          signal: controller.current.signal,
        });
        const runId = response.headers.get('x-org-run-id') ?? `local-${Date.now()}`;
        const now = new Date().toISOString();
        const base = { run_id: runId, created_at: now, completed_at: null, summary: null, artifacts: [] };
        dispatch({
          type: 'sent',
          user: { ...base, id: `local-user-${runId}`, sender: 'user', text: message, attachments: attachments.map(({ name, content_type, size }) => ({ name, content_type, size })), events: [], status: 'complete' },
          agent: { ...base, id: `local-agent-${runId}`, sender: 'agent', text: '', attachments: [], events: [], status: 'running' },
        });
        seen.current.set(runId, 0);
        setSending(false);
        await follow(runId, response);
        if (!controller.current.signal.aborted) await refresh();
        return true;
      } catch (failure) {
        if (!controller.current.signal.aborted) setError(failure);
        return false;
      } finally {
        setSending(false);
      }
    },
    [api, structureId, roleId, follow, refresh],
  );

  const stop = useCallback(async () => {
    if (!activeRunId) return;
    try {
      await api.post(`/api/org/chat/runs/${encodeURIComponent(activeRunId)}/cancel`);
    } catch (failure) {
      // 409: it finished meanwhile; the stream shows how.
      if (!(failure instanceof ApiError && failure.status === 409)) setError(failure);
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

