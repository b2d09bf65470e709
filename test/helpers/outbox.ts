/**
 * The e-mails an instance wrote to its outbox (`<home>/.org/outbox/*.eml`), as tests read
 * them: newest first, with quoted-printable soft line breaks joined so a token or URL
 * wrapped by the encoder reads whole.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Raw texts of the outbox's messages, newest first, soft line breaks removed. */
export async function outboxMails(home: string): Promise<string[]> {
  const outbox = join(home, '.org', 'outbox');
  const names = (await readdir(outbox)).filter((name) => name.endsWith('.eml')).sort().reverse();
  return Promise.all(names.map(async (name) => (await readFile(join(outbox, name), 'utf8')).replace(/=\r?\n/g, '')));
}

/** The invite token of the newest invite e-mail sent to `email`; throws when there is none. */
export async function inviteTokenFor(home: string, email: string): Promise<string> {
  for (const mail of await outboxMails(home)) {
    if (!mail.includes(email)) continue;
    const token = /org_inv_[0-9A-Za-z]+/.exec(mail)?.[0];
    if (token) return token;
  }
  throw new Error(`no invite e-mail to ${email} in the outbox of ${home}`);
}
