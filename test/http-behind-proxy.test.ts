/**
 * Behind a reverse proxy (issue 31.11), on real listening servers with the headers a proxy
 * sends: the caller's `X-Request-Id` is kept; the MCP `do` tool's `artifact_urls` start
 * where the client reached the service — what a proxy named by `--trust-proxy` says
 * (`X-Forwarded-Proto`, `X-Forwarded-Host`), or `ORG_PUBLIC_URL` — at both MCP revisions,
 * and the same headers from a client that is no trusted proxy change nothing.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { OrgConfig } from '../src/core/config.js';
import { startInstance, type TestInstance } from './helpers/instance.js';
import { createWorkRuntime } from './helpers/work-runtime.js';

const PROXY_HEADERS = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'org.example.com', 'x-forwarded-for': '203.0.113.9', 'x-request-id': 'caller-request-7f3a' };

const instances: TestInstance[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  for (const t of instances) await t.close();
});

/** A listening instance with a node key of the CFO. */
async function instance(config: Partial<OrgConfig>) {
  const t = await startInstance({ listen: true, config, deps: { runtime: () => createWorkRuntime(0) } });
  instances.push(t);
  const owner = await t.createUser(`owner-${instances.length}@example.com`);
  const structure = await t.createStructure(owner.token, 'exec-team');
  const minted = await t.server.inject({ method: 'POST', url: `/api/org/structures/${structure.id}/agents/exec-cfo/mcp-key`, headers: t.auth(owner.token), payload: {} });
  return { t, structureId: structure.id, token: minted.json<{ token: string }>().token };
}

/** Calls `do` at the 2025 revision (a session) and at 2026-07-28 (stateless); returns both results' artifact_urls. */
async function artifactUrls(url: string, token: string, headers: Record<string, string>): Promise<string[][]> {
  const requestInit = { headers: { authorization: `Bearer ${token}`, ...headers } };
  const v1 = new ClientV1({ name: 'proxy-test', version: '1' });
  await v1.connect(new TransportV1(new URL('/mcp', url), { requestInit }));
  closers.push(() => v1.close());
  const v2 = new ClientV2({ name: 'proxy-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' as const } } });
  await v2.connect(new TransportV2(new URL('/mcp', url), { requestInit }));
  closers.push(() => v2.close());
  const legacy = await v1.callTool({ name: 'do', arguments: { message: 'write the report' } });
  const modern = await v2.callTool({ name: 'do', arguments: { message: 'write the report' } });
  return [legacy, modern].map((result) => (result.structuredContent as { artifact_urls: string[] }).artifact_urls);
}

describe('behind a proxy', () => {
  it('behind a trusted proxy: artifact_urls start at the public URL the proxy names, and the caller\'s X-Request-Id is kept', { timeout: 60_000 }, async () => {
    const { t, structureId, token } = await instance({ trustProxy: ['loopback'] });
    const expected = `https://org.example.com/api/org/structures/${structureId}/agents/exec-cfo/artifacts/report.md`;
    expect(await artifactUrls(t.url, token, PROXY_HEADERS)).toEqual([[expected], [expected]]);

    const health = await fetch(new URL('/api/org/health', t.url), { headers: PROXY_HEADERS });
    expect(health.headers.get('x-request-id')).toBe('caller-request-7f3a');
  });

  it('the same headers from a client that is no trusted proxy change nothing', { timeout: 60_000 }, async () => {
    const { t, structureId, token } = await instance({ trustProxy: ['10.0.0.0/8'] });
    const expected = `${t.url}/api/org/structures/${structureId}/agents/exec-cfo/artifacts/report.md`;
    expect(await artifactUrls(t.url, token, PROXY_HEADERS)).toEqual([[expected], [expected]]);
  });

  it('ORG_PUBLIC_URL names the public URL whatever the request says', { timeout: 60_000 }, async () => {
    const { t, structureId, token } = await instance({ trustProxy: ['loopback'], publicUrl: 'https://org.acme.test' });
    const expected = `https://org.acme.test/api/org/structures/${structureId}/agents/exec-cfo/artifacts/report.md`;
    expect(await artifactUrls(t.url, token, PROXY_HEADERS)).toEqual([[expected], [expected]]);
  });
});
