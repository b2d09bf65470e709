/**
 * The state of a chat screen as a pure reducer: the transcript (one entry per thing
 * shown, text events merged as they stream, a tool call completed by its result), the
 * running turn, the input line and pending attachments.
 */
import type { ChatEvent, HistoryMessage } from '../../../client/types.js';
import { delegateCall, delegateOutcome, type DelegateOutcome } from '../../delegation-print.js';
import { learnedOutcome, type LearnedOutcome } from '../../learned.js';
import { EMPTY_LINE, type LineState } from '../line-edit.js';

/** An attachment waiting to go with the next message. */
export interface PendingAttachment {
  name: string;
  path: string;
  size: number;
}

/** How a notice looks: a title line, information, or a warning. */
export type NoticeTone = 'title' | 'info' | 'warn';

/** One thing shown in the transcript. */
export type Entry = { id: number } & (
  | { kind: 'user'; text: string; attachments: string[] }
  | { kind: 'thought'; text: string }
  | { kind: 'text'; text: string }
  /** `ended`: the turn ended (or was cancelled) before the tool returned. */
  | { kind: 'tool'; tool: string; args: unknown; status: 'running' | 'done' | 'ended'; result?: unknown }
  /** A task handed to another node (API.md §10), then what it came to. */
  | { kind: 'delegate'; roleId: string; message: string; runId: string | null; status: 'running' | 'done' | 'ended'; outcome?: DelegateOutcome }
  | { kind: 'decision'; title: string; body: string }
  | { kind: 'milestone'; title: string }
  | { kind: 'skill_learned'; outcome: LearnedOutcome }
  | { kind: 'complete'; summary: string; artifacts: string[] }
  | { kind: 'error'; message: string }
  | { kind: 'notice'; text: string; tone: NoticeTone }
);

/** What a transcript entry shows (a message, a tool call, a decision, ...): the discriminant the view switches on. */
export type EntryKind = Entry['kind'];

/** Distributes Omit over the entry union. */
type EntryInput = Entry extends infer E ? (E extends Entry ? Omit<E, 'id'> : never) : never;

/** A running turn. */
export interface RunState {
  /** Known once the server accepted the message. */
  id?: string;
  cancelling: boolean;
  /** Set while the stream reconnects after a drop. */
  reconnecting?: number;
}

/** The chat screen's state. */
export interface ChatState {
  entries: Entry[];
  /** Entries before this index are final (rendered once, above the live part). */
  liveFrom: number;
  nextId: number;
  run: RunState | null;
  /** The input line (text typed so far and the cursor). */
  line: LineState;
  pending: PendingAttachment[];
}

/** What can happen on a chat screen. */
export type ChatAction =
  | { type: 'typed'; line: LineState }
  | { type: 'sent'; text: string; attachments: string[] }
  | { type: 'resumed' }
  | { type: 'run-started'; runId: string }
  | { type: 'event'; event: ChatEvent }
  | { type: 'reconnecting'; attempt: number }
  | { type: 'cancel-requested' }
  | { type: 'failed'; message: string }
  | { type: 'run-ended' }
  | { type: 'attached'; attachment: PendingAttachment }
  | { type: 'notice'; text: string; tone?: NoticeTone }
  | { type: 'history'; messages: HistoryMessage[] };

/** The empty state. */
export const initialChatState: ChatState = { entries: [], liveFrom: 0, nextId: 1, run: null, line: EMPTY_LINE, pending: [] };

function append(state: ChatState, entry: EntryInput): ChatState {
  return { ...state, entries: [...state.entries, { ...entry, id: state.nextId } as Entry], nextId: state.nextId + 1 };
}

/** Settles everything shown so far (when no turn is running). */
function settle(state: ChatState): ChatState {
  return state.run ? state : { ...state, liveFrom: state.entries.length };
}

/** Applies one chat event to the transcript. */
export function applyEvent(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case 'text': {
      const last = state.entries.at(-1);
      if (last?.kind === 'text' && state.entries.length > state.liveFrom) {
        const merged = { ...last, text: last.text + event.content };
        return { ...state, entries: [...state.entries.slice(0, -1), merged] };
      }
      return append(state, { kind: 'text', text: event.content });
    }
    case 'thought':
      return append(state, { kind: 'thought', text: event.content });
    case 'tool_call': {
      const delegation = delegateCall(event);
      if (delegation) return append(state, { kind: 'delegate', ...delegation, status: 'running' });
      return append(state, { kind: 'tool', tool: event.content.tool, args: event.content.args, status: 'running' });
    }
    case 'tool_result': {
      const outcome = delegateOutcome(event);
      if (outcome) return delegationEnded(state, outcome);
      for (let i = state.entries.length - 1; i >= state.liveFrom; i--) {
        const entry = state.entries[i];
        if (entry?.kind === 'tool' && entry.status === 'running' && entry.tool === event.content.tool) {
          const entries = [...state.entries];
          entries[i] = { ...entry, status: 'done', result: event.content.result };
          return { ...state, entries };
        }
      }
      return append(state, { kind: 'tool', tool: event.content.tool, args: undefined, status: 'done', result: event.content.result });
    }
    case 'decision':
      return append(state, { kind: 'decision', title: event.content.title, body: event.content.body });
    case 'milestone':
      return append(state, { kind: 'milestone', title: event.content.title });
    case 'skill_learned': {
      // Only the outcome (stored, or not and why) is shown, never a runtime's proposal.
      const outcome = learnedOutcome(event.content);
      return outcome ? append(state, { kind: 'skill_learned', outcome }) : state;
    }
    case 'complete':
      return append(state, { kind: 'complete', summary: event.content.summary, artifacts: event.content.artifacts });
    case 'error':
      return append(state, { kind: 'error', message: event.content.message });
  }
}

/** Marks the running delegation that `outcome` answers (the same run, or the same node when refused) as done. */
function delegationEnded(state: ChatState, outcome: DelegateOutcome): ChatState {
  for (let i = state.entries.length - 1; i >= state.liveFrom; i--) {
    const entry = state.entries[i];
    if (entry?.kind === 'delegate' && entry.status === 'running' && entry.runId === outcome.runId && entry.roleId === outcome.roleId) {
      const entries = [...state.entries];
      entries[i] = { ...entry, status: 'done', outcome };
      return { ...state, entries };
    }
  }
  return append(state, { kind: 'delegate', roleId: outcome.roleId, message: '', runId: outcome.runId, status: 'done', outcome });
}

/** Tool calls (and delegations) of a finished turn that never got a result are shown as ended without one (not as done). */
function closeTools(entries: Entry[], from: number): Entry[] {
  return entries.map((entry, i) => (i >= from && (entry.kind === 'tool' || entry.kind === 'delegate') && entry.status === 'running' ? { ...entry, status: 'ended' } : entry));
}

/** The reducer of the chat screen. */
export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'typed':
      return { ...state, line: action.line };
    case 'sent': {
      const next = append({ ...state, line: EMPTY_LINE, pending: [] }, { kind: 'user', text: action.text, attachments: action.attachments });
      return { ...next, liveFrom: next.entries.length, run: { cancelling: false } };
    }
    case 'resumed':
      return { ...state, liveFrom: state.entries.length, run: { cancelling: false } };
    case 'run-started':
      return { ...state, run: { ...(state.run ?? { cancelling: false }), id: action.runId } };
    case 'event': {
      const next = applyEvent(state, action.event);
      if (!next.run?.reconnecting) return next;
      const { reconnecting: _done, ...run } = next.run;
      return { ...next, run };
    }
    case 'reconnecting':
      return state.run ? { ...state, run: { ...state.run, reconnecting: action.attempt } } : state;
    case 'cancel-requested':
      return state.run ? { ...state, run: { ...state.run, cancelling: true } } : state;
    case 'failed':
      return append(state, { kind: 'error', message: action.message });
    case 'run-ended':
      return { ...state, run: null, entries: closeTools(state.entries, state.liveFrom), liveFrom: state.entries.length };
    case 'attached':
      return settle(append({ ...state, pending: [...state.pending, action.attachment] }, { kind: 'notice', text: `attached ${action.attachment.name} (${action.attachment.size} bytes); it goes with your next message`, tone: 'info' }));
    case 'notice':
      return settle(append(state, { kind: 'notice', text: action.text, tone: action.tone ?? 'info' }));
    case 'history': {
      let next = state;
      // Oldest first, and only the gist: what was asked and how it ended.
      for (const message of [...action.messages].reverse()) {
        if (message.sender === 'user') next = append(next, { kind: 'user', text: message.text, attachments: message.attachments.map((a) => a.name) });
        else if (message.status === 'complete') next = append(next, { kind: 'complete', summary: message.summary ?? '', artifacts: message.artifacts });
        else if (message.status === 'error') {
          const error = message.events.findLast((event) => event.type === 'error');
          next = append(next, { kind: 'error', message: error?.type === 'error' ? error.content.message : 'the turn failed' });
        }
      }
      return settle(next);
    }
  }
}
