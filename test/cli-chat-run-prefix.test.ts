/**
 * `org chat --run` takes the start of a run id, as other commands take an id prefix:
 * `GET /api/org/chat/runs?prefix=` finds only the runs the caller may follow, and the
 * command follows the one run it names or says which ones it could mean.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChat } from '../src/cli/commands/chat.js';
import { OrgClient } from '../src/client/index.js';
import { findRunId } from '../src/cli/resolve.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { capture, depsFor } from './cli-helpers.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

describe('org chat --run PREFIX', () => {
  let t: TestInstance;
  let alice: string;
  let bob: string;
  let structureId: string;
  const runs: string[] = [];
  const out = capture();

  beforeAll(async () => {
    t = await startInstance({ listen: true, deps: { runtime: () => createScriptedRuntime(() => [{ type: 'text', content: 'On it.' }, { type: 'complete', content: { summary: 'Done', artifacts: [] } }]) } });
    alice = (await t.createUser('alice@example.com')).token;
    bob = (await t.createUser('bob@example.com')).token;
    structureId = (await t.createStructure(alice, 'exec-team', 'Acme')).id;
    await t.createStructure(bob, 'exec-team', 'Bobs');
    const client = new OrgClient({ url: t.url, token: alice });
    for (const role of ['exec-ceo', 'exec-cfo']) {
      const result = await client.chatSync({ structure_id: structureId, role_id: role, message: 'status please' });
      runs.push(result.run_id);
    }
  });
  afterAll(() => t?.close());

  const find = (token: string, query: string) => t.server.inject({ method: 'GET', url: `/api/org/chat/runs?${query}`, headers: t.auth(token) });

  it('GET /chat/runs lists the caller\'s runs starting with a prefix (any case), another user none, the administrator all', async () => {
    const [ceoRun] = runs as [string];
    const mine = await find(alice, `prefix=${ceoRun.slice(0, 8).toUpperCase()}`);
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toEqual({ runs: [{ run_id: ceoRun, structure_id: structureId, role_id: 'exec-ceo' }], more: false });
    expect((await find(bob, `prefix=${ceoRun.slice(0, 8)}`)).json()).toEqual({ runs: [], more: false });
    expect((await find(ADMIN_TOKEN, `prefix=${ceoRun}`)).json<{ runs: unknown[] }>().runs).toHaveLength(1);
    // Naming a structure searches it alone, and one the caller cannot see is refused as elsewhere.
    expect((await find(alice, `prefix=${ceoRun.slice(0, 8)}&structure_id=${structureId}`)).json<{ runs: unknown[] }>().runs).toHaveLength(1);
    expect((await find(bob, `prefix=${ceoRun.slice(0, 8)}&structure_id=${structureId}`)).statusCode).toBe(404);
    for (const bad of ['abc', 'zzzz', `${'a'.repeat(37)}`]) expect((await find(alice, `prefix=${bad}`)).statusCode, bad).toBe(400);
  });

  it('follows the one run a prefix names, and says what a short, unknown or ambiguous prefix means', async () => {
    const [ceoRun, cfoRun] = runs as [string, string];
    expect(await runChat({ run: ceoRun.slice(0, 8) }, depsFor(t, alice, out))).toBe(0);
    expect(out.out).toEqual(['On it.', '✔ Done']);
    out.clear();
    expect(await runChat({ run: cfoRun.slice(0, 6).toUpperCase(), structure: 'Acme' }, depsFor(t, alice, out))).toBe(0);
    expect(out.out).toContain('✔ Done');
    out.clear();
    await expect(runChat({ run: 'ab' }, depsFor(t, alice, out))).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('first 4 or more characters') });
    await expect(runChat({ run: ceoRun.slice(0, 8) }, depsFor(t, bob, out))).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining(`no run of yours starts with "${ceoRun.slice(0, 8)}"`) });
    // Several matches: the command lists them (the server's answer, as GET /chat/runs gives it) and follows none.
    const several = { findRuns: async () => ({ runs: runs.map((run_id, n) => ({ run_id, structure_id: structureId, role_id: n ? 'exec-cfo' : 'exec-ceo' })), more: true }) };
    await expect(findRunId(several, 'abcd')).rejects.toMatchObject({ code: 'invalid_request', message: `"abcd" matches several runs: ${ceoRun} (exec-ceo), ${cfoRun} (exec-cfo), …; give more characters` });
  });
});
