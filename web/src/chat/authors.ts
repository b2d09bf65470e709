/**
 * Who wrote a user-side message, in words: "You" for the reader's own messages, else the
 * person, key, sender or node the history records (`author`). Messages stored before
 * authors were recorded say where they came from, if known. Pure.
 */
import type { Me } from '../api/context';
import type { HistoryMessage } from '../api/types';

/** The name shown above a user-side message. */
export function authorName(message: Pick<HistoryMessage, 'author' | 'origin'>, me: Me): string {
  const author = message.author;
  if (!author) return message.origin ? `Sender not recorded (${message.origin})` : 'Sender not recorded';
  if (author.kind === 'user' && author.id !== undefined && author.id === me.user?.id) return 'You';
  if (author.kind === 'admin') return me.kind === 'admin' ? 'You' : 'Administrator';
  switch (author.kind) {
    case 'user':
      return author.label;
    case 'node_key':
      return `Key “${author.label}”`;
    case 'email':
      return `${author.label} (e-mail)`;
    case 'channel':
      return `${author.label} (channel)`;
    case 'node':
      return `${author.label} (delegated)`;
  }
}

/** The reader as history records a message's author (what a message sent from this page says until history has it). */
export function readerAuthor(me: Me): HistoryMessage['author'] {
  if (me.kind === 'admin') return { kind: 'admin', label: 'administrator' };
  if (me.kind === 'user' && me.user) return { kind: 'user', id: me.user.id, label: me.user.email };
  return undefined;
}
