/**
 * Ids in request logs (issue 18, item 10), read from the real stderr of `org serve` at
 * ORG_LOG_LEVEL=info: once a request's scope is resolved, its log records carry the
 * structure, node and run ids of that scope (a turn's records its run id too); a request
 * refused before its scope is resolved names nothing it asked for, even when its body or
 * query names a structure.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, startServe, type ServeChild } from './helpers/child.js';

const ADMIN = 'log-ids-admin-token-0123456789abcdef';

type LogRecord = Record<string, unknown>;

/** The stderr JSON records of `child` so far. */
function records(child: ServeChild): LogRecord[] {
  return child
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogRecord);
}

/** Resolves with the completion record of the request with `requestId`, once written; rejects if the server exits first. */
function completion(child: ServeChild, requestId: string): Promise<LogRecord> {
  return new Promise((resolve, reject) => {
    void child.exited.then((exit) => reject(new Error(`org serve exited (${JSON.stringify(exit)}) before completing ${requestId}: ${child.stderr()}`)));
    const check = () => {
      const found = records(child).find((record) => record.request_id === requestId && record.msg === 'request completed');
      if (found) {
        child.process.stderr?.off('data', check);
        resolve(found);
      }
    };
    child.process.stderr?.on('data', check);
    check();
  });
}

describe('org serve names the resolved scope in request logs', () => {
  let home: string;
  let child: ServeChild;
  let structureId: string;
  let otherId: string;
  let nodeId: string;
  let userToken: string;

  const call = async (method: string, path: string, options: { token?: string; body?: unknown; requestId: string }) => {
    const response = await fetch(`${child.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token ?? ADMIN}`,
        'x-request-id': options.requestId,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
  };

  beforeAll(async () => {
    ensureBuilt();
    home = await mkdtemp(join(tmpdir(), 'org-log-ids-'));
    child = await startServe({ home, args: ['--no-demo'], env: { ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), ORG_LOG_LEVEL: 'info' } });
    await child.ready;
    structureId = (await call('POST', '/api/org/structures', { body: { name: 'Logged', template: 'blank' }, requestId: 'setup-1' })).body.id as string;
    otherId = (await call('POST', '/api/org/structures', { body: { name: 'Other', template: 'blank' }, requestId: 'setup-2' })).body.id as string;
    const node = await call('POST', `/api/org/structures/${structureId}/agents`, { body: { role_id: 'team-a', label: 'A' }, requestId: 'setup-3' });
    expect(node.status).toBe(201);
    nodeId = node.body.id as string;
    const user = await call('POST', '/api/org/users', { body: { email: 'outsider@example.com' }, requestId: 'setup-4' });
    userToken = user.body.token as string;
  }, 120_000);
  afterAll(async () => {
    await child?.stop('SIGTERM');
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('a turn’s records carry its structure, node and run; the incoming line, logged before access, none', async () => {
    const sent = await call('POST', '/api/org/chat/message/sync', { body: { structure_id: structureId, role_id: 'team-a', message: 'hello' }, requestId: 'turn-1' });
    expect(sent.status).toBe(200);
    const runId = sent.body.run_id as string;
    const done = await completion(child, 'turn-1');
    expect(done).toMatchObject({ structure_id: structureId, node_id: nodeId, run_id: runId, res: { statusCode: 200 } });
    const incoming = records(child).find((record) => record.request_id === 'turn-1' && record.msg === 'incoming request');
    expect(incoming).toBeDefined();
    expect(incoming).not.toHaveProperty('structure_id');

    // A run route: the run's own ids, from the run the access layer located.
    const events = await fetch(`${child.url}/api/org/chat/runs/${runId}/events`, { headers: { authorization: `Bearer ${ADMIN}`, 'x-request-id': 'run-1' } });
    await events.arrayBuffer();
    expect(await completion(child, 'run-1')).toMatchObject({ structure_id: structureId, node_id: nodeId, run_id: runId });
  });

  it('a structure route carries the structure only; a node route its node too', async () => {
    expect((await call('GET', `/api/org/structures/${structureId}`, { requestId: 'detail-1' })).status).toBe(200);
    const detail = await completion(child, 'detail-1');
    expect(detail).toMatchObject({ structure_id: structureId });
    expect(detail).not.toHaveProperty('node_id');
    expect(detail).not.toHaveProperty('run_id');

    expect((await call('GET', `/api/org/chat/history?structure_id=${structureId}&role_id=team-a`, { requestId: 'history-1' })).status).toBe(200);
    expect(await completion(child, 'history-1')).toMatchObject({ structure_id: structureId, node_id: nodeId });
  });

  it('a refused request names no structure, whatever it asked for', async () => {
    // A non-member: answered as an unknown structure, and its records do not name it.
    const hidden = await call('POST', '/api/org/chat/message/sync', { token: userToken, body: { structure_id: structureId, role_id: 'team-a', message: 'hi' }, requestId: 'refused-1' });
    expect(hidden.status).toBe(404);
    // Two structures named in two places: refused before any is resolved.
    const split = await call('POST', `/api/org/chat/message/sync?structure_id=${otherId}`, { body: { structure_id: structureId, role_id: 'team-a', message: 'hi' }, requestId: 'refused-2' });
    expect(split.status).toBe(400);
    for (const id of ['refused-1', 'refused-2']) {
      const done = await completion(child, id);
      expect(done.request_id).toBe(id);
      const lines = records(child).filter((record) => record.request_id === id);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).not.toHaveProperty('structure_id');
        expect(line).not.toHaveProperty('node_id');
        expect(JSON.stringify(line)).not.toContain(structureId);
      }
    }
  });
});
