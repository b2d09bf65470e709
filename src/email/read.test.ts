/** The MIME reader behind the inbound service's ReadEmail port, on messages built by nodemailer. */
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { readEmail } from './read.js';

const SID = '3f0c9a4e-8b1d-4c2e-9f3a-5d6e7f8a9b0c';

describe('readEmail', () => {
  it('reads sender, recipients, threading ids, text and attachments', async () => {
    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
    const { message } = (await transport.sendMail({
      from: 'Alice <alice@example.com>',
      replyTo: 'alice.replies@example.com',
      to: 'team@example.com',
      cc: `exec-ceo.${SID}@org.example.com`,
      subject: ' Plan ',
      messageId: '<m-2@example.com>',
      references: '<m-0@example.com> <m-1@example.com>',
      text: 'Do it.\n\nOn Sun, Bob wrote:\n> before',
      attachments: [{ filename: '../../etc/passwd', content: 'x' }],
      headers: { 'Delivered-To': `exec-cfo.${SID}@org.example.com` },
    })) as { message: Buffer };
    const email = await readEmail(message);
    expect(email).toMatchObject({
      messageId: '<m-2@example.com>',
      references: ['<m-0@example.com>', '<m-1@example.com>'],
      subject: 'Plan',
      sender: 'alice.replies@example.com',
      recipients: [`exec-cfo.${SID}@org.example.com`, 'team@example.com', `exec-ceo.${SID}@org.example.com`],
      text: 'Do it.\n\nOn Sun, Bob wrote:\n> before',
    });
    expect(email.attachments).toHaveLength(1);
    expect(email.attachments[0]!.content.toString()).toBe('x');
  });

  it('refuses an empty body', async () => {
    await expect(readEmail(Buffer.alloc(0))).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
