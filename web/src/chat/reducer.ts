/** Chat panel state: history (oldest first) and live events merged in by run. Pure. */
import type { ChatEvent, HistoryMessage } from '../api/types';
import { isTerminal } from '../../../src/core/chat/types.js';

/** The panel's messages, oldest first. */
export interface ChatState {
  messages: HistoryMessage[];
  /** True when older messages may exist (the last page was full). */
  hasMore: boolean;
}

/** Actions on the chat state. */
export type ChatAction =
  | { type: 'reset' }
  /** The newest page (newest first, as the API returns it); keeps older pages already shown. */
  | { type: 'newest'; page: HistoryMessage[]; limit: number; replace?: boolean }
  /** An older page (newest first) loaded with `before`. */
  | { type: 'older'; page: HistoryMessage[]; limit: number }
  /** A message was sent: the local user message and the agent message of its run. */
  | { type: 'sent'; user: HistoryMessage; agent: HistoryMessage }
  /** A live event of a run. */
  | { type: 'event'; runId: string; event: ChatEvent };

export const initialChat: ChatState = { messages: [], hasMore: false };

const byTime = (a: HistoryMessage, b: HistoryMessage) =>
  a.created_at === b.created_at ? (a.sender === b.sender ? 0 : a.sender === 'user' ? -1 : 1) : a.created_at < b.created_at ? -1 : 1;

/** Applies an action. */
export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'reset':
      return initialChat;
    case 'newest': {
      const fresh = [...action.page].reverse();
      if (action.replace) return { messages: fresh, hasMore: action.page.length >= action.limit };
      const ids = new Set(fresh.map((message) => message.id));
      const runs = new Set(fresh.map((message) => `${message.sender}:${message.run_id}`));
      // Keep older messages already shown; local placeholders give way to the stored ones.
      const kept = state.messages.filter((message) => !ids.has(message.id) && !runs.has(`${message.sender}:${message.run_id}`));
      const merged = [...kept, ...fresh].sort(byTime);
      return { messages: merged, hasMore: state.messages.length > 0 ? state.hasMore : action.page.length >= action.limit };
    }
    case 'older': {
      const ids = new Set(state.messages.map((message) => message.id));
      const older = [...action.page].reverse().filter((message) => !ids.has(message.id));
      return { messages: [...older, ...state.messages], hasMore: action.page.length >= action.limit };
    }
    case 'sent':
      return { ...state, messages: [...state.messages, action.user, action.agent] };
    case 'event': {
      let changed = false;
      const messages = state.messages.map((message) => {
        if (message.sender !== 'agent' || message.run_id !== action.runId) return message;
        changed = true;
        const next: HistoryMessage = { ...message, events: [...message.events, action.event] };
        const event = action.event;
        if (isTerminal(event)) {
          next.status = event.type === 'complete' ? 'complete' : 'error';
          next.completed_at = event.timestamp;
          if (event.type === 'complete') {
            next.summary = event.content.summary;
            next.artifacts = event.content.artifacts;
          }
        }
        return next;
      });
      return changed ? { ...state, messages } : state;
    }
  }
}
