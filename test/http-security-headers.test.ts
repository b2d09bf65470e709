/**
 * Headers of API answers on a listening server (issue 28, finding 18): every answer that
 * carries a token — and every other API answer, all of them somebody's own — is marked
 * `Cache-Control: no-store`; every API answer (errors and streams included) carries
 * `X-Content-Type-Options: nosniff`; and the `WWW-Authenticate` of `/mcp` names the
 * service's own address, never the `Host` header the caller sent.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteTokenFor } from './helpers/outbox.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

describe('API answers are never stored and never sniffed', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let structureId: string;

  beforeAll(async () => {
    t = await startInstance({ listen: true });
    owner = await t.createUser('headers-owner@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Headers')).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const call = async (method: string, path: string, token: string | undefined, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await request(`${t.url}${path}`, {
      method: method as 'GET',
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    const json = /json/.test(String(response.headers['content-type'])) && text ? (JSON.parse(text) as Record<string, unknown>) : {};
    return { status: response.statusCode, headers: response.headers, json };
  };

  it('every answer carrying a token is marked no-store (user creation, key minting, token rotation, invite acceptance, webhook secrets)', async () => {
    const created = await call('POST', '/api/org/users', ADMIN_TOKEN, { email: 'headers-new@example.com' });
    const minted = await call('POST', `/api/org/structures/${structureId}/agents/exec-ceo/mcp-key`, owner.token, { label: 'headers' });
    const rotated = await call('POST', '/api/org/users/me/token', String(created.json.token));
    const shared = await call('POST', `/api/org/structures/${structureId}/share`, owner.token, { email: 'headers-invitee@example.com', role: 'viewer' });
    expect(shared.status).toBe(200);
    const accepted = await call('POST', '/api/org/invites/accept', undefined, { token: await inviteTokenFor(t.home, 'headers-invitee@example.com') });
    const hooked = await call('POST', `/api/org/structures/${structureId}/webhooks`, owner.token, { url: 'https://hooks.example.com/org', events: ['run.completed'] });
    for (const [what, answer] of Object.entries({ created, minted, rotated, accepted, hooked })) {
      expect(answer.status, `${what}: ${JSON.stringify(answer.json)}`).toBeLessThan(300);
      expect(JSON.stringify(answer.json), what).toMatch(/org_(u|mcp|inv)_|whsec_|"token"|"secret"/);
      expect(answer.headers['cache-control'], what).toBe('no-store');
      expect(answer.headers['x-content-type-options'], what).toBe('nosniff');
    }
  });

  it('every API answer, success, refusal or stream, is no-store and nosniff', async () => {
    const answers = {
      structures: await call('GET', '/api/org/structures', owner.token),
      history: await call('GET', `/api/org/chat/history?structure_id=${structureId}&role_id=exec-ceo`, owner.token),
      unauthenticated: await call('GET', '/api/org/structures', undefined),
      unknownRoute: await call('GET', '/api/org/no-such-thing', owner.token),
      invalid: await call('POST', '/api/org/structures', owner.token, { name: '' }),
      health: await call('GET', '/api/org/health', undefined),
      stream: await call('POST', '/api/org/chat/message', owner.token, { structure_id: structureId, role_id: 'exec-ceo', message: 'hello' }),
      mcpRefused: await call('POST', '/mcp', undefined, { jsonrpc: '2.0', id: 1, method: 'ping' }),
    };
    for (const [what, answer] of Object.entries(answers)) {
      expect(answer.headers['cache-control'], what).toBe('no-store');
      expect(answer.headers['x-content-type-options'], what).toBe('nosniff');
    }
  });

  it('the WWW-Authenticate of /mcp names the service’s own address whatever Host the caller sends', async () => {
    for (const host of ['evil.example', 'evil.example:4780', `127.0.0.1.evil.example`]) {
      const refused = await call('POST', '/mcp', 'org_mcp_unknownunknownunknownunknown00', { jsonrpc: '2.0', id: 1, method: 'ping' }, { host, accept: 'application/json, text/event-stream' });
      expect(refused.status).toBe(401);
      const header = String(refused.headers['www-authenticate']);
      expect(header).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
      expect(header).not.toContain('evil');
    }
  });
});
