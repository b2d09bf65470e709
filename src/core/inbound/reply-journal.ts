/**
 * The journal of replies owed to inbound e-mails, behind one interface with one
 * implementation per backend (the home's `.org/inbound-replies.jsonl`, a PostgreSQL
 * table): an e-mail whose turn was cut short by a restart (or by the death of the
 * instance that took it) is still answered, once.
 */
import { appendJsonl, readJsonl } from '../storage/index.js';

/** What a reply needs, recorded when the e-mail is accepted. */
export interface OwedReply {
  run_id: string;
  structure_id: string;
  node_id: string;
  role_id: string;
  to: string;
  subject: string;
  message_id: string | null;
  references: string[];
}

/** Storage of owed replies. */
export interface ReplyJournal {
  /**
   * Records a reply owed, durably, before its turn can end. A run the journal already
   * knows (owed or sent) is left as it is, so a reply is never owed twice.
   */
  owe(reply: OwedReply): Promise<void>;
  /** Records that the reply of a run was sent. */
  sent(runId: string): Promise<void>;
  /**
   * The replies owed and not yet sent that this instance should answer: every one on a
   * filesystem home; on a shared store, those taken by this instance or by one that stopped.
   */
  owed(): Promise<OwedReply[]>;
  /**
   * Every reply owed and not yet sent, whichever instance holds it, without taking any
   * (what `org migrate` copies).
   */
  pending(): Promise<OwedReply[]>;
}

type JournalRecord = ({ kind: 'owed' } & OwedReply) | { kind: 'sent'; run_id: string };

/** The filesystem journal: append-only JSON Lines. */
export function createFsReplyJournal(file: string): ReplyJournal {
  const pending = async () => {
    const owed = new Map<string, OwedReply>();
    for (const record of await readJsonl<JournalRecord>(file)) {
      if (record.kind === 'sent') owed.delete(record.run_id);
      else {
        const { kind: _kind, ...reply } = record;
        owed.set(record.run_id, reply);
      }
    }
    return [...owed.values()];
  };
  return {
    async owe(reply) {
      const known = (await readJsonl<JournalRecord>(file)).some((record) => record.run_id === reply.run_id);
      if (!known) await appendJsonl(file, { kind: 'owed', ...reply } satisfies JournalRecord);
    },
    sent: (runId) => appendJsonl(file, { kind: 'sent', run_id: runId } satisfies JournalRecord),
    owed: pending,
    pending,
  };
}
