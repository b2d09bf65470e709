/**
 * The effects of a chat screen: sending a message and following its stream (which
 * resumes by itself after a dropped connection), cancelling the running turn, and on
 * opening, showing the node's recent history and picking up a turn still running.
 */
import { useCallback, useEffect, useRef, type Dispatch } from 'react';
import type { ChatStream, OrgClient } from '../../../client/index.js';
import { encodeAttachments } from '../../attachments.js';
import type { ChatAction, PendingAttachment } from './state.js';

/** The part of the client a chat screen uses. */
export type ChatClient = Pick<OrgClient, 'chat' | 'followRun' | 'history'>;

/** The node a chat screen talks to. */
export interface ChatTarget {
  structureId: string;
  roleId: string;
}

/** What the screen can do. */
export interface ChatSession {
  send(text: string, attachments: readonly PendingAttachment[]): Promise<void>;
  cancel(): Promise<void>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Options of {@link useChatSession}. */
export interface ChatSessionOptions {
  /** How many history messages to show on opening (default 6; 0: none, and no resume). */
  historyLimit?: number;
}

/** Runs the chat effects for `target`, reporting through `dispatch`. */
export function useChatSession(client: ChatClient, target: ChatTarget, dispatch: Dispatch<ChatAction>, options: ChatSessionOptions = {}): ChatSession {
  const stream = useRef<ChatStream | undefined>(undefined);
  const cancelWanted = useRef(false);
  const mounted = useRef(true);
  const historyLimit = options.historyLimit ?? 6;

  const follow = useCallback(
    async (opened: ChatStream) => {
      stream.current = opened;
      dispatch({ type: 'run-started', runId: opened.runId });
      if (cancelWanted.current) await opened.cancel().catch((error: unknown) => dispatch({ type: 'notice', text: `cancel failed: ${messageOf(error)}`, tone: 'warn' }));
      try {
        for await (const { event } of opened) {
          if (!mounted.current) return;
          dispatch({ type: 'event', event });
        }
      } catch (error) {
        if (mounted.current) dispatch({ type: 'failed', message: messageOf(error) });
      } finally {
        stream.current = undefined;
        cancelWanted.current = false;
        if (mounted.current) dispatch({ type: 'run-ended' });
      }
    },
    [dispatch],
  );

  const onReconnect = useCallback((info: { attempt: number }) => dispatch({ type: 'reconnecting', attempt: info.attempt }), [dispatch]);

  const send = useCallback(
    async (text: string, attachments: readonly PendingAttachment[]) => {
      dispatch({ type: 'sent', text, attachments: attachments.map((a) => a.name) });
      let opened: ChatStream;
      try {
        const encoded = await encodeAttachments(attachments);
        opened = await client.chat(
          { structure_id: target.structureId, role_id: target.roleId, message: text, ...(encoded.length ? { attachments: encoded } : {}) },
          { onReconnect },
        );
      } catch (error) {
        cancelWanted.current = false;
        dispatch({ type: 'failed', message: messageOf(error) });
        dispatch({ type: 'run-ended' });
        return;
      }
      await follow(opened);
    },
    [client, target.structureId, target.roleId, dispatch, follow, onReconnect],
  );

  const cancel = useCallback(async () => {
    dispatch({ type: 'cancel-requested' });
    const current = stream.current;
    if (!current) {
      cancelWanted.current = true; // the message is still on its way: cancel as soon as the run has an id
      return;
    }
    try {
      await current.cancel();
    } catch (error) {
      dispatch({ type: 'notice', text: `cancel failed: ${messageOf(error)}`, tone: 'warn' });
    }
  }, [dispatch]);

  useEffect(() => {
    mounted.current = true;
    if (historyLimit > 0) {
      client.history(target.structureId, target.roleId, { limit: historyLimit }).then(
        (messages) => {
          if (!mounted.current) return;
          const running = messages.find((message) => message.sender === 'agent' && message.status === 'running');
          const settled = running ? messages.filter((message) => message !== running) : messages;
          dispatch({ type: 'history', messages: settled });
          if (running) {
            dispatch({ type: 'notice', text: 'a turn is still running on this node: following it (Ctrl-C cancels it)' });
            dispatch({ type: 'resumed' });
            for (const event of running.events) dispatch({ type: 'event', event });
            void follow(client.followRun(running.run_id, running.events.length, { onReconnect }));
          }
        },
        (error: unknown) => mounted.current && dispatch({ type: 'notice', text: `could not load the history: ${messageOf(error)}`, tone: 'warn' }),
      );
    }
    return () => {
      mounted.current = false;
      stream.current?.close();
    };
  }, [client, target.structureId, target.roleId, historyLimit, dispatch, follow, onReconnect]);

  return { send, cancel };
}
