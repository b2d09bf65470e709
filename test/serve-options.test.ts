/**
 * `org serve` options (issue 18, items 5 and 6): every option is checked before anything
 * listens (a bad one exits 2 with the option named and no listening line), and
 * `--sse-keepalive` sets the interval of the keepalive comment of event streams, here
 * observed on a live stream from a container turn that stalls.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import { runServe } from '../src/cli/commands/serve.js';
import { main } from '../src/cli/main.js';
import { open } from './helpers/sse.js';

const ADMIN = 'serve-options-admin-token-0123456789';

/** Runs `org serve <args>` in process with a clean ORG_* environment; returns the exit code and output. */
async function serve(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string[]; err: string[] }> {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith('ORG_')) delete process.env[name];
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await main(['node', 'org', 'serve', ...args], { out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out, err };
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

describe('org serve validates every option before listening', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-serve-options-'));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it.each([
    [['--smtp-port', '0'], {}, /--smtp-port needs ORG_INBOUND_SECRET/],
    [['--sse-keepalive', '0'], {}, /--sse-keepalive must be a positive number/],
    [['--sse-keepalive', 'soon'], {}, /--sse-keepalive must be a positive number/],
    [['--sse-keepalive', '7200'], {}, /--sse-keepalive must be from 0\.05 to 3600 seconds/],
    [[], { ORG_SSE_KEEPALIVE: '-1' }, /ORG_SSE_KEEPALIVE must be a positive number/],
    [['--port', '70000'], {}, /--port must be an integer from 0 to 65535/],
    [['--sync-timeout', 'x'], {}, /--sync-timeout must be a positive number/],
    [['--host', ''], {}, /--host must be a host name or address/],
    [['--trust-proxy', 'true'], {}, /--trust-proxy: "true" is not an address, a CIDR range or one of loopback/],
    [[], { ORG_TRUST_PROXY: '10.0.0.0/40' }, /ORG_TRUST_PROXY: "10\.0\.0\.0\/40" is not an address/],
    [[], { ORG_LOG_LEVEL: 'loud' }, /ORG_LOG_LEVEL must be one of/],
    [['--allow-egress', 'everywhere'], {}, /--allow-egress: "everywhere" is not loopback, private, an IP address or a CIDR range/],
    [['--allow-egress', 'loopback', '--allow-egress', '10.0.0.0/33'], {}, /--allow-egress: "10\.0\.0\.0\/33" is not/],
    [[], { ORG_EGRESS_ALLOW: 'loopback,127.1' }, /ORG_EGRESS_ALLOW: "127\.1" is not/],
    [['--max-queued-turns', '0'], {}, /--max-queued-turns must be a whole number from 1 to 10000/],
    [[], { ORG_MAX_QUEUED_TURNS: 'many' }, /ORG_MAX_QUEUED_TURNS must be a whole number/],
    [['--artifact-quota', '1.5'], {}, /--artifact-quota must be a whole number from 1 to 1048576/],
    [[], { ORG_WEBHOOK_RETRIES: '5,soon' }, /ORG_WEBHOOK_RETRIES must be delays in seconds \(0 to 86400\) separated by commas/],
    [[], { ORG_WEBHOOK_RETRIES: '5,,60' }, /ORG_WEBHOOK_RETRIES must be delays in seconds/],
    [[], { ORG_PUBLIC_URL: 'example.com' }, /ORG_PUBLIC_URL must be an absolute URL/],
    [[], { ORG_SMTP_URL: 'http://mail.example.com' }, /ORG_SMTP_URL must use smtp or smtps/],
    [[], { ORG_MAIL_FROM: 'not an address' }, /ORG_MAIL_FROM must be an e-mail address/],
    [['--port', '4999', '--smtp-port', '4999'], { ORG_INBOUND_SECRET: 'inbound-secret-0123456789' }, /SMTP port and the HTTP port must differ/],
  ] as [string[], Record<string, string>, RegExp][])('%j %j → exit 2 before listening', async (args, env, message) => {
    const result = await serve(['--home', home, '--port', '0', '--no-demo', ...args], { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), ...env });
    expect(result.code).toBe(2);
    expect(result.err.join('\n')).toMatch(message);
    expect(result.out.join('\n')).not.toContain('org: listening on');
  });
});

describe('--sse-keepalive', () => {
  let home: string;
  let agent: ContainerAgent;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'org-sse-keepalive-'));
    agent = await startContainerAgent({ port: 0, log: () => undefined });
  });
  afterAll(async () => {
    await agent?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('sets the interval of keepalive comments on a live stream', { timeout: 60_000 }, async () => {
    const running = await runServe(
      { home, port: 0, host: '127.0.0.1', demo: false, sseKeepalive: '0.1', allowEgress: ['loopback'] },
      { out: () => undefined, err: () => undefined },
      { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), ORG_LOG_LEVEL: 'silent' },
    );
    try {
      const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
      const structure = (await (await fetch(`${running.url}/api/org/structures`, { method: 'POST', headers, body: JSON.stringify({ name: 'Keepalive', template: 'blank' }) })).json()) as { id: string };
      const node = await fetch(`${running.url}/api/org/structures/${structure.id}/agents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ role_id: 'ops-relay', label: 'Relay', container_url: agent.url }),
      });
      expect(node.status).toBe(201);
      // `stall`: one event, then the container sends nothing; only keepalives flow.
      const stream = await open(`${running.url}/api/org/chat/message`, { token: ADMIN, body: { structure_id: structure.id, role_id: 'ops-relay', message: 'stall' } });
      expect(stream.status).toBe(200);
      // At the default 15 s this would not happen before the test's timeout.
      await stream.until((response) => response.comments().filter((comment) => comment === 'keepalive').length >= 3, 30_000);
      stream.abort();
      const runId = String(stream.headers['x-org-run-id']);
      const cancelled = await fetch(`${running.url}/api/org/chat/runs/${runId}/cancel`, { method: 'POST', headers: { authorization: headers.authorization } });
      expect(cancelled.status).toBeLessThan(300);
    } finally {
      await running.stop();
    }
  });
});
