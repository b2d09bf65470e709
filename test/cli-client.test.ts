/**
 * The typed client (src/client) against a real listening server: problem+json becomes
 * OrgError with the server's code, a create-only skill write is refused on a taken slug,
 * a server that is not running gives the one-line
 * "start one with: org serve" message, chat streams carry every event in order, a
 * dropped connection is resumed with Last-Event-ID (no event lost or repeated), and
 * cancel ends the turn with `error` "cancelled".
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient, type StreamedEvent } from '../src/client/index.js';
import type { EventInput } from '../src/core/chat/types.js';
import { OrgError } from '../src/core/errors.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { EVERY_EVENT, startDropProxy } from './cli-helpers.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const SLOW: EventInput[] = [
  ...Array.from({ length: 12 }, (_, i): EventInput => ({ type: 'text', content: `part ${i} ` })),
  { type: 'complete', content: { summary: 'slow done', artifacts: [] } },
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 1;
}

describe('client', () => {
  let t: TestInstance;
  let client: OrgClient;
  let structureId: string;

  beforeAll(async () => {
    t = await startInstance({
      listen: true,
      deps: {
        runtime: () =>
          createScriptedRuntime((turn) => (turn.message.startsWith('slow') ? SLOW : EVERY_EVENT), { delayMs: 40 }),
      },
    });
    client = new OrgClient({ url: t.url, token: ADMIN_TOKEN });
    structureId = (await client.createStructure('Client test', 'exec-team')).id;
  });
  afterAll(() => t.close());

  it('turns problem+json into an OrgError with the code, status and exit code', async () => {
    const error = await client.getSkill('no-such-skill').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrgError);
    expect(error).toMatchObject({ code: 'not_found', status: 404, exitCode: 4 });

    const bad = new OrgClient({ url: t.url, token: 'org_u_wrongwrongwrongwrongwrongwrongwrong' });
    await expect(bad.listStructures()).rejects.toMatchObject({ code: 'unauthorized', exitCode: 3 });

    const invalid = await client.createStructure('', 'exec-team').catch((e: unknown) => e as OrgError);
    expect(invalid).toMatchObject({ code: 'invalid_request' });
    expect((invalid as OrgError).errors?.length).toBeGreaterThan(0);
  });

  it('creates a skill only when the slug is free: a taken one is already_exists and stays as it was', async () => {
    const write = (name: string) => ({ structure_id: structureId, slug: 'client-create-only', frontmatter: { type: 'skill', name, status: 'draft' }, body: '## [a] Step 1: A\n' });
    const created = await client.createSkill(write('First'));
    expect(created.frontmatter.name).toBe('First');
    const refused = await client.createSkill(write('Second')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OrgError);
    expect(refused).toMatchObject({ code: 'already_exists', status: 409 });
    expect((await client.getSkill('client-create-only')).frontmatter.name).toBe('First');
  });

  it('says how to start a server when none is running', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const error = (await new OrgClient({ url, token: ADMIN_TOKEN }).listStructures().then(
      () => undefined,
      (e: unknown) => e,
    )) as OrgError;
    expect(error).toBeInstanceOf(OrgError);
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`no org server at ${url} — start one with: org serve`);
  });

  it('streams every event type in order and ends after the terminal event', async () => {
    const stream = await client.chat({ structure_id: structureId, role_id: 'exec-ceo', message: 'hello' });
    expect(stream.runId).toMatch(/^[0-9a-f-]{36}$/);
    const got: StreamedEvent[] = [];
    for await (const item of stream) got.push(item);
    // The first turn learns no renamed draft, so the events are exactly the script's.
    expect(got.map((item) => item.event.type)).toEqual(EVERY_EVENT.map((event) => event.type));
    expect(got.map((item) => item.seq)).toEqual(EVERY_EVENT.map((_, i) => i + 1));
    expect(stream.lastEventId).toBe(EVERY_EVENT.length);
  });

  it('resumes a dropped connection with Last-Event-ID: nothing lost, nothing repeated', async () => {
    const proxy = await startDropProxy(t.url);
    try {
      const reconnects: number[] = [];
      const viaProxy = new OrgClient({ url: proxy.url, token: ADMIN_TOKEN, stream: { retryDelayMs: 20, onReconnect: (info) => reconnects.push(info.lastEventId) } });
      const stream = await viaProxy.chat({ structure_id: structureId, role_id: 'exec-cfo', message: 'slow please' });
      const got: StreamedEvent[] = [];
      for await (const item of stream) {
        got.push(item);
        if (got.length === 3) proxy.dropAll();
      }
      expect(reconnects.length).toBeGreaterThanOrEqual(1);
      expect(reconnects[0]).toBe(3);
      expect(proxy.connections).toBeGreaterThanOrEqual(2);
      expect(got.map((item) => item.seq)).toEqual(SLOW.map((_, i) => i + 1));
      expect(got.at(-1)?.event).toMatchObject({ type: 'complete', content: { summary: 'slow done' } });
    } finally {
      await proxy.close();
    }
  });

  it('follows a finished run from the start or after an event id', async () => {
    const stream = await client.chat({ structure_id: structureId, role_id: 'exec-coo', message: 'hello again' });
    for await (const _ of stream) void _;
    const replay: StreamedEvent[] = [];
    for await (const item of client.followRun(stream.runId, 6)) replay.push(item);
    // The engine may add events of its own (a renamed learned draft), so count from the stream.
    expect(replay.map((item) => item.seq)).toEqual(Array.from({ length: stream.lastEventId - 6 }, (_, i) => i + 7));
    expect(replay.at(-1)?.event.type).toBe('complete');
  });

  it('cancels a running turn: the stream ends with error "cancelled"', async () => {
    const stream = await client.chat({ structure_id: structureId, role_id: 'exec-cmo', message: 'slow and long' });
    const got: StreamedEvent[] = [];
    for await (const item of stream) {
      got.push(item);
      if (got.length === 2) await stream.cancel();
    }
    expect(got.at(-1)?.event).toMatchObject({ type: 'error', content: { message: 'cancelled' } });
    expect(got.length).toBeLessThan(SLOW.length);
    // Cancelling a finished run is not an error for the client.
    await expect(client.cancelRun(stream.runId)).resolves.toBeUndefined();
  });
});
