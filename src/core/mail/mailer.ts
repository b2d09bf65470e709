/**
 * The outgoing mail port. Core sends mail only through {@link Mailer}; the transports
 * (SMTP, the `.eml` outbox) live outside core, in the mail adapter layer (`src/email`),
 * and the composition root picks one. A shared contract suite runs against every
 * implementation, so a service written against this interface behaves the same on each.
 */

/** A message to send, in the service's terms (the transport turns it into RFC 5322). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text`. */
  html?: string;
  /** Where replies to this message should go (e.g. the address of the node that answered). */
  replyTo?: string;
  /** The `Message-ID` this message answers (threading). */
  inReplyTo?: string;
  /** The thread's `Message-ID`s, oldest first (threading). */
  references?: string[];
  attachments?: { filename: string; content: Buffer; contentType?: string }[];
}

/** What a transport reports about a message it accepted. */
export interface SentMail {
  /** The `Message-ID` header of the message as sent, angle brackets included. */
  messageId: string;
  /** The `.eml` file written, for the outbox transport. */
  file?: string;
}

/**
 * An outgoing mail transport. `send` resolves once the transport has taken the message
 * (the SMTP server acknowledged it, the file is durable) and rejects when it could not;
 * `close` releases connections and is safe to call twice.
 */
export interface Mailer {
  send(message: MailMessage): Promise<SentMail>;
  close(): Promise<void>;
}
