/**
 * An inbound e-mail as the inbound service reads it, and the port that reads one from
 * raw RFC 5322 bytes ({@link ReadEmail}). The reader that parses MIME lives outside core
 * (`src/email/read.ts`, mailparser); the service strips quoted history itself.
 */

/** An attachment of an inbound e-mail. */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

/** The parts of an inbound e-mail the service uses. */
export interface InboundEmail {
  /** The `Message-ID` (with angle brackets), when present. */
  messageId?: string;
  /** The `References` chain, oldest first. */
  references: string[];
  subject: string;
  /** `Reply-To`, else `From` (a bare address). */
  sender?: string;
  /** The `From` address (bare): who the message says wrote it, the identity a relay authenticates. */
  from?: string;
  /** The values of its `Authentication-Results` headers, topmost first (unfolded). */
  authenticationResults?: string[];
  /** Candidate recipient addresses: Delivered-To, X-Original-To, To, Cc (in that order). */
  recipients: string[];
  /** The plain-text body as sent, quoted history included. */
  text: string;
  attachments: EmailAttachment[];
}

/**
 * Reads raw RFC 5322 bytes into an {@link InboundEmail}; rejects with a 400 `OrgError`
 * when the bytes are not a readable e-mail.
 */
export type ReadEmail = (raw: Buffer) => Promise<InboundEmail>;
