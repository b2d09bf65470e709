/**
 * The invite e-mail as written to the outbox (issue 16.14): the token and the command
 * that accepts it stand on lines of their own that survive being copied straight out
 * of the raw `.eml` — no quoted-printable `=` escapes or soft line breaks inside them —
 * even when the public URL is long enough to make the message quoted-printable.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInvitesAccept } from '../src/cli/commands/sharing.js';
import { capture } from './cli-helpers.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

async function newestMail(home: string): Promise<string> {
  const outbox = join(home, '.org', 'outbox');
  const names = (await readdir(outbox)).filter((name) => name.endsWith('.eml')).sort();
  return readFile(join(outbox, names.at(-1)!), 'utf8');
}

describe.each([
  ['a short public URL (7bit message)', undefined],
  ['a long public URL (quoted-printable message)', 'https://org.example-company-with-a-very-long-host-name.example.com/teams/finance'],
])('the invite e-mail with %s', (_label, publicUrl) => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structureId: string;
  beforeAll(async () => {
    t = await startInstance({ listen: true, ...(publicUrl ? { config: { publicUrl } } : {}) });
    owner = await t.createUser('owner@example.com');
    structureId = (await t.createStructure(owner.token, 'personal', 'Café crème')).id;
  });
  afterAll(() => t.close());

  it('keeps the token and the accept command whole on their own lines, and the copied command works', async () => {
    const shared = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structureId}/share`, headers: t.auth(owner.token), payload: { email: 'ana@example.com', role: 'operator' } });
    expect(shared.statusCode).toBe(200);
    const raw = (await newestMail(t.home)).replace(/\r\n/g, '\n');
    const lines = raw.split('\n');
    // Copied as they stand in the raw file:
    const tokenLine = lines.find((line) => /^ {4}org_inv_[0-9A-Za-z]{32,}$/.test(line));
    expect(tokenLine, raw).toBeDefined();
    const token = tokenLine!.trim();
    const at = lines.indexOf(`    org invites accept ${token} \\`);
    expect(at, raw).toBeGreaterThan(0);
    const base = publicUrl ?? t.url;
    if (publicUrl) {
      // The structure's name (é) and the long URL make the body quoted-printable: only the
      // URL line, longer than a mail line may be, is soft-wrapped; the lines above stay whole.
      expect(raw).toMatch(/Content-Transfer-Encoding: quoted-printable/i);
      expect(raw.replace(/=\n/g, '')).toContain(`\n      --url ${base}\n`);
    } else {
      expect(lines[at + 1]).toBe(`      --url ${base}`);
    }

    // The copied token accepts the invite.
    const out = capture();
    expect(await runInvitesAccept({ inviteToken: token, url: t.url }, { output: out.output, env: {}, interactive: false })).toBe(0);
    expect(out.text()).toContain('ana@example.com is now operator');
  });
});
