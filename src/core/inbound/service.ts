/**
 * The inbound service: turns a signed e-mail or messaging-channel message into a chat
 * message for the node it is addressed to (with an `origin` naming the sender), and
 * mails the turn's outcome back to an e-mail's sender as a threaded reply with the
 * turn's artifacts attached. The HTTP routes and the SMTP listener both call it.
 */
import { ATTACHMENT_LIMITS, safeName, type DecodedAttachment } from '../chat/artifacts.js';
import type { ChatEngine } from '../chat/engine.js';
import { decodeEvent, type EncodedEvent } from '../chat/encoded.js';
import { isTerminal, type ChatEvent } from '../chat/types.js';
import { forbidden, invalid, notFound } from '../errors.js';
import type { Mailer, MailMessage } from '../mail/mailer.js';
import { errorFields, silentLog, type Log } from '../util/log.js';
import { mediaTypeOr } from '../util/patterns.js';
import type { StructureService } from '../structures/structures.js';
import { nodeAddress, parseNodeAddress, type NodeAddress } from './address.js';
import type { InboundEmail, ReadEmail } from './email.js';
import { stripQuotedReply } from './quotes.js';
import { createFsReplyJournal, type OwedReply, type ReplyJournal } from './reply-journal.js';
import { MemoryReplayGuard, type ReplayGuard } from './replay-guard.js';
import { senderAuthenticated } from './sender-auth.js';

/** Longest chat message (API.md §6); longer e-mail text is cut. */
const MAX_MESSAGE = 100_000;

export interface InboundServiceOptions {
  chat: ChatEngine;
  structures: Pick<StructureService, 'has' | 'record'>;
  mailer: Mailer;
  /** Reads a raw inbound e-mail (the MIME parser lives in the mail adapter layer). */
  readEmail: ReadEmail;
  /** The domain of routing addresses (ORG_INBOUND_DOMAIN). */
  domain: string;
  /** Largest artifact attached to a reply, in bytes (default 10 MiB); a larger one is only named. */
  maxReplyAttachmentBytes?: number;
  /** Where failures of background replies are reported (default: silent). */
  log?: Log;
  /**
   * Journal of replies owed: an e-mail whose turn was cut short by a restart is still
   * answered by `recover()` after the restart. A path is the file of the filesystem
   * journal (`.org/inbound-replies.jsonl`).
   */
  journal?: ReplyJournal | string;
  /** Takes each inbound webhook message id once (default: in memory; a shared store's across instances). */
  replays?: ReplayGuard;
  /**
   * The `authserv-id` of the relay's `Authentication-Results` (ORG_INBOUND_AUTHSERV_ID):
   * set, an e-mail is accepted only when that header records a pass for its From domain
   * (see sender-auth.ts); unset, the relay is trusted to have rejected unauthenticated mail.
   */
  authservId?: string;
  /** True when the person with this e-mail address may chat in the structure (an operator or owner). Default: nobody. */
  mayChat?: (structureId: string, email: string) => Promise<boolean>;
}

/** A message accepted for a node. */
export interface InboundAccepted {
  runId: string;
  structureId: string;
  roleId: string;
}

/** A messaging-channel message (API.md §7). */
export interface ChannelMessage {
  structureId: string;
  roleId: string;
  text: string;
  sender: string;
}

/** Removes control characters and bounds the length of a sender name used in an origin. */
function cleanSender(sender: string): string {
  // eslint-disable-next-line no-control-regex
  return sender.replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, 320);
}

function replySubject(subject: string): string {
  if (/^re:/i.test(subject)) return subject;
  return `Re: ${subject || '(no subject)'}`;
}

/** Accepts inbound messages and answers e-mails. */
export class InboundService {
  private readonly pending = new Set<Promise<void>>();
  private readonly journal: ReplyJournal | undefined;

  private readonly replays: ReplayGuard;

  constructor(private readonly options: InboundServiceOptions) {
    this.replays = options.replays ?? new MemoryReplayGuard();
    this.journal = typeof options.journal === 'string' ? createFsReplyJournal(options.journal) : options.journal;
  }
  /** True the first time a signed webhook message id is seen (within the window its timestamp is accepted in); false for a replay. */
  claimMessageId(id: string, nowMs: number): Promise<boolean> {
    return this.replays.claim(id, nowMs);
  }


  /** The routing address of a node. */
  addressOf(roleId: string, structureId: string): string {
    return nodeAddress(roleId, structureId, this.options.domain);
  }

  /** True when `address` names an existing node (for SMTP `RCPT TO`). */
  accepts(address: string): boolean {
    const parsed = parseNodeAddress(address, this.options.domain);
    return parsed !== undefined && this.exists(parsed);
  }

  private exists(address: NodeAddress): boolean {
    return this.options.structures.has(address.structureId) && this.options.structures.record(address.structureId).agents.some((node) => node.role_id === address.roleId);
  }

  /** The first recipient that names an existing node; 404 otherwise. */
  route(recipients: readonly string[]): NodeAddress {
    for (const candidate of recipients) {
      const address = parseNodeAddress(candidate, this.options.domain);
      if (address && this.exists(address)) return address;
    }
    throw notFound(`no recipient is the address of a node (<role_id>.<structure_id>@${this.options.domain})`);
  }

  /**
   * Accepts a raw RFC 5322 e-mail: routes it by recipient (envelope recipients first),
   * stages its attachments, starts the turn and, when the turn ends, mails the reply.
   * 400 for an unreadable message or one without sender or text, 404 for an unknown address.
   */
  async acceptEmail(raw: Buffer, envelope: { recipients?: string[] } = {}): Promise<InboundAccepted> {
    const email = await this.options.readEmail(raw);
    const address = this.route([...(envelope.recipients ?? []), ...email.recipients]);
    if (!email.from) throw invalid('the e-mail has no sender address (From)');
    // Its From, authenticated by the relay, is who asks; only the structure's operators and
    // owners start work by mail. The answer says no more than that (no membership oracle).
    const from = cleanSender(email.from);
    const authenticated = this.options.authservId === undefined || senderAuthenticated(email.authenticationResults ?? [], this.options.authservId, from);
    if (!authenticated || !(await this.options.mayChat?.(address.structureId, from))) {
      (this.options.log ?? silentLog)('info', 'inbound: e-mail refused', { from, structure_id: address.structureId, reason: authenticated ? 'not a member allowed to chat' : `no pass of ${this.options.authservId} for the From domain` });
      throw forbidden('the message was refused: its sender may not start work in this workspace by e-mail (an operator or owner, writing from an authenticated address)');
    }
    const attachments = this.attachmentsOf(email);
    let message = stripQuotedReply(email.text) || email.text.trim() || email.subject;
    if (!message && attachments.length > 0) message = '(no text: see the attached files)';
    if (!message) throw invalid('the e-mail has no text');
    if (message.length > MAX_MESSAGE) message = message.slice(0, MAX_MESSAGE);
    const run = await this.options.chat.send({
      structureId: address.structureId,
      roleId: address.roleId,
      message,
      attachments,
      origin: `email:${from}`,
      author: { kind: 'email', id: from, label: from },
    });
    const owed: OwedReply = {
      run_id: run.id,
      structure_id: run.structureId,
      node_id: run.nodeId,
      role_id: run.roleId,
      // To the authenticated address, never to a Reply-To the message chose.
      to: from,
      subject: email.subject,
      message_id: email.messageId ?? null,
      references: email.references,
    };
    await this.journal?.owe(owed);
    this.track(run.done.then(() => this.reply(owed, run.terminal)), run.id);
    return { runId: run.id, ...address };
  }

  /** Accepts a messaging-channel message; 404 when the node does not exist. */
  async acceptMessage(input: ChannelMessage): Promise<InboundAccepted> {
    const sender = cleanSender(input.sender);
    if (!sender) throw invalid('sender must not be empty', [{ path: 'body.sender', message: 'must not be empty' }]);
    const run = await this.options.chat.send({
      structureId: input.structureId,
      roleId: input.roleId,
      message: input.text,
      origin: `message:${sender}`,
      author: { kind: 'channel', id: sender, label: sender },
    });
    return { runId: run.id, structureId: input.structureId, roleId: run.roleId };
  }

  /**
   * Sends the replies a previous process owed (their turns were closed by the chat
   * engine's recovery, so they end in `error`). Call after `ChatEngine.recover()`. A
   * reply whose turn is still running elsewhere (another instance) is left for later.
   */
  async recover(): Promise<number> {
    if (!this.journal) return 0;
    let sent = 0;
    for (const reply of await this.journal.owed()) {
      if (this.tracked.has(reply.run_id)) continue;
      const live = this.options.chat.run(reply.run_id);
      if (live && !live.finished) {
        this.track(live.done.then(() => this.reply(reply, live.terminal)), reply.run_id);
        continue;
      }
      const { run, events } = await this.options.chat.replay(reply.run_id).catch(() => ({ run: undefined, events: [] as EncodedEvent[] }));
      const last = events.at(-1);
      const terminal = last && isTerminal(last) ? decodeEvent(last) : undefined;
      if (!terminal && run && !run.finished) continue;
      this.track(this.reply(reply, terminal), reply.run_id);
      sent++;
    }
    await this.idle();
    return sent;
  }

  /** Resolves when every reply in flight has been sent or has failed. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Runs whose reply is being sent by this instance. */
  private readonly tracked = new Set<string>();

  private track(work: Promise<void>, runId: string): void {
    const log = this.options.log ?? silentLog;
    this.tracked.add(runId);
    const tracked = work
      .catch((error: unknown) => log('error', 'replying to an inbound e-mail failed', errorFields(error)))
      .finally(() => {
        this.pending.delete(tracked);
        this.tracked.delete(runId);
      });
    this.pending.add(tracked);
  }

  private attachmentsOf(email: InboundEmail): DecodedAttachment[] {
    if (email.attachments.length > ATTACHMENT_LIMITS.count) {
      throw invalid(`an e-mail may carry at most ${ATTACHMENT_LIMITS.count} attachments, this one has ${email.attachments.length}`);
    }
    return email.attachments.map((attachment) => {
      if (attachment.content.length > ATTACHMENT_LIMITS.bytes) throw invalid(`attachment ${JSON.stringify(attachment.filename)} is larger than 10 MiB`);
      return { name: safeName(attachment.filename), content_type: mediaTypeOr(attachment.contentType), data: attachment.content };
    });
  }

  /** Mails the outcome of a turn to the sender, threaded under the inbound message. */
  private async reply(owed: OwedReply, terminal: ChatEvent | undefined): Promise<void> {
    const lines: string[] = [];
    const attachments: NonNullable<MailMessage['attachments']> = [];
    if (terminal?.type === 'complete') {
      lines.push(terminal.content.summary || 'Done.');
      const limit = this.options.maxReplyAttachmentBytes ?? ATTACHMENT_LIMITS.bytes;
      const shelf = this.options.chat.shelfOf(owed.structure_id, owed.node_id);
      const skipped: string[] = [];
      for (const name of terminal.content.artifacts) {
        try {
          const { info, stream } = await shelf.open(name);
          if (info.size > limit) {
            stream.destroy();
            skipped.push(name);
            continue;
          }
          const content = Buffer.concat((await stream.toArray()) as Buffer[]);
          attachments.push({ filename: info.name, content, contentType: info.content_type });
        } catch {
          skipped.push(name);
        }
      }
      if (attachments.length > 0) lines.push('', 'Attached:', ...attachments.map((file) => `- ${file.filename}`));
      if (skipped.length > 0) lines.push('', 'Not attached (too large or missing; download them from the node’s artifacts):', ...skipped.map((name) => `- ${name}`));
    } else {
      lines.push(`The agent could not finish: ${terminal?.type === 'error' ? terminal.content.message : 'the turn ended without a result'}`);
    }
    lines.push('', '-- ', `${owed.role_id} · run ${owed.run_id}`);
    const references = [...owed.references, ...(owed.message_id ? [owed.message_id] : [])];
    await this.options.mailer.send({
      to: owed.to,
      subject: replySubject(owed.subject),
      text: lines.join('\n'),
      replyTo: this.addressOf(owed.role_id, owed.structure_id),
      ...(owed.message_id ? { inReplyTo: owed.message_id } : {}),
      ...(references.length > 0 ? { references } : {}),
      ...(attachments.length > 0 ? { attachments } : {}),
    });
    await this.journal?.sent(owed.run_id);
  }
}
