/**
 * Reads an inbound RFC 5322 message with mailparser into what the inbound service
 * needs: who sent it, whom it was addressed to, its threading ids, the new text of the
 * body and its attachments.
 */
import type { AddressObject, HeaderValue } from 'mailparser';
import { invalid } from '../errors.js';
import { stripQuotedReply } from './quotes.js';

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
  /** Where replies go: `Reply-To`, else `From` (a bare address). */
  sender?: string;
  /** Candidate recipient addresses: Delivered-To, X-Original-To, To, Cc (in that order). */
  recipients: string[];
  /** The text the sender wrote, quoted history and signature removed. */
  text: string;
  attachments: EmailAttachment[];
}

function addresses(value: AddressObject | AddressObject[] | HeaderValue | undefined): string[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return value.split(',').map((part) => part.trim()).filter(Boolean);
  if (Array.isArray(value)) return value.flatMap((item) => addresses(item as AddressObject | string));
  if (typeof value === 'object' && 'value' in value && Array.isArray(value.value)) {
    return value.value.flatMap((entry) => [
      ...(entry.address ? [entry.address] : []),
      ...(entry.group ?? []).flatMap((member) => (member.address ? [member.address] : [])),
    ]);
  }
  return [];
}

/** Parses a raw message; 400 when it is not a readable e-mail. */
export async function parseInboundEmail(raw: Buffer): Promise<InboundEmail> {
  if (raw.length === 0) throw invalid('the e-mail is empty');
  // Loaded with the first message: a server that receives no mail never loads the parser.
  const { simpleParser } = await import('mailparser');
  let parsed;
  try {
    parsed = await simpleParser(raw, { skipTextToHtml: true, skipImageLinks: true });
  } catch {
    throw invalid('the body is not a readable RFC 5322 message');
  }
  const references = parsed.references === undefined ? [] : Array.isArray(parsed.references) ? parsed.references : parsed.references.split(/\s+/).filter(Boolean);
  const sender = addresses(parsed.replyTo)[0] ?? addresses(parsed.from)[0];
  const written = parsed.text ? stripQuotedReply(parsed.text) : '';
  return {
    ...(parsed.messageId ? { messageId: parsed.messageId } : {}),
    references,
    subject: parsed.subject?.trim() ?? '',
    ...(sender ? { sender } : {}),
    recipients: [
      ...addresses(parsed.headers.get('delivered-to')),
      ...addresses(parsed.headers.get('x-original-to')),
      ...addresses(parsed.to),
      ...addresses(parsed.cc),
    ],
    text: written || (parsed.text ?? '').trim(),
    attachments: parsed.attachments
      .filter((attachment) => attachment.filename || !attachment.related)
      .map((attachment, index) => ({
        filename: attachment.filename ?? `attachment-${index + 1}`,
        contentType: attachment.contentType || 'application/octet-stream',
        content: attachment.content,
      })),
  };
}
