/**
 * The MIME reader behind core's `ReadEmail` port: mailparser turns raw RFC 5322 bytes
 * into sender, recipients, threading ids, the plain text and the attachments. Quoted
 * history is left in the text; the inbound service strips it.
 */
import type { AddressObject, HeaderValue } from 'mailparser';
import { invalid } from '../core/errors.js';
import type { InboundEmail } from '../core/inbound/index.js';

/** Bare addresses of an address header, group members included. */
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

/** Reads a raw message; 400 `invalid_request` when it is empty or not a readable e-mail. */
export async function readEmail(raw: Buffer): Promise<InboundEmail> {
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
  const from = addresses(parsed.from)[0];
  const sender = addresses(parsed.replyTo)[0] ?? from;
  // In message order: the relay adds its own on top.
  const authenticationResults = parsed.headerLines
    .filter((header) => header.key === 'authentication-results')
    .map((header) => header.line.slice(header.line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim());
  return {
    ...(parsed.messageId ? { messageId: parsed.messageId } : {}),
    references,
    subject: parsed.subject?.trim() ?? '',
    ...(sender ? { sender } : {}),
    ...(from ? { from } : {}),
    authenticationResults,
    recipients: [
      ...addresses(parsed.headers.get('delivered-to')),
      ...addresses(parsed.headers.get('x-original-to')),
      ...addresses(parsed.to),
      ...addresses(parsed.cc),
    ],
    text: parsed.text ?? '',
    attachments: parsed.attachments
      .filter((attachment) => attachment.filename || !attachment.related)
      .map((attachment, index) => ({
        filename: attachment.filename ?? `attachment-${index + 1}`,
        contentType: attachment.contentType || 'application/octet-stream',
        content: attachment.content,
      })),
  };
}
