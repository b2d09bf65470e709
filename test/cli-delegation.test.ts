/**
 * `org chat -m` and delegation (API.md §10) against a listening instance with the
 * bundled playbooks: the CEO's month-end close prints `→ <label> (<role_id>): <message>`
 * and the outcome; with `--follow` the CFO's run and, below it, the controller's are
 * printed indented under their delegations, before the outcome; `--json --follow` marks
 * the lines of delegated runs with their run id and depth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChat } from '../src/cli/commands/chat.js';
import { runHistory, runLog } from '../src/cli/commands/history.js';
import { capture, depsFor } from './cli-helpers.js';
import { startChatWithPackageSkills } from './helpers/package-skills.js';
import type { ChatFixture } from './helpers/chat.js';

describe('org chat shows delegations', () => {
  let c: ChatFixture;

  beforeAll(async () => {
    c = await startChatWithPackageSkills('org-cli-delegation-');
  }, 60_000);
  afterAll(async () => {
    await c?.close();
  });

  it('prints each delegation and its outcome; --follow prints the delegated runs indented under them, before the outcome', async () => {
    const plain = capture();
    expect(await runChat({ structure: 'Acme', role: 'exec-ceo', message: 'Run the month-end close' }, depsFor(c.t, c.owner.token, plain))).toBe(0);
    const handed = plain.out.find((line) => line.startsWith('→ '));
    expect(handed).toMatch(/^→ Chief Financial Officer \(exec-cfo\): Ask the CFO for the signed-off close: Sign off the month-end close package/);
    expect(plain.out).toContainEqual(expect.stringMatching(/^← Chief Financial Officer \(exec-cfo\): ✔ Followed "Sign off the month-end close package" through 3 step\(s\) with exec-finance-controller/));
    expect(plain.out.some((line) => line.startsWith('  '))).toBe(false);

    const followed = capture();
    expect(await runChat({ structure: 'Acme', role: 'exec-ceo', message: 'Run the month-end close', follow: true }, depsFor(c.t, c.owner.token, followed))).toBe(0);
    const out = followed.out;
    const toCfo = out.findIndex((line) => line.startsWith('→ Chief Financial Officer (exec-cfo)'));
    const fromCfo = out.findIndex((line) => line.startsWith('← Chief Financial Officer (exec-cfo)'));
    const toController = out.findIndex((line) => line.startsWith('  → Finance Controller (exec-finance-controller): Have the controller close the books'));
    const controllerDone = out.findIndex((line) => /^ {4}✔ Followed "Run the month-end close" through 5 step\(s\)/.test(line));
    const fromController = out.findIndex((line) => line.startsWith('  ← Finance Controller (exec-finance-controller): ✔'));
    const cfoDone = out.findIndex((line) => /^ {2}✔ Followed "Sign off the month-end close package"/.test(line));
    for (const index of [toCfo, toController, controllerDone, fromController, cfoDone, fromCfo]) expect(index, out.join('\n')).toBeGreaterThanOrEqual(0);
    expect([toCfo, toController, controllerDone, fromController, cfoDone, fromCfo]).toEqual([...[toCfo, toController, controllerDone, fromController, cfoDone, fromCfo]].sort((a, b) => a - b));
    expect(out).toContainEqual('    ▸ Step 1: Enforce cut-off');
    expect(out.at(-2)).toMatch(/^✔ Followed "Run the month-end close with the exec team" through 3 step\(s\) with exec-cfo/);
  });

  it('--json --follow marks the events of delegated runs with their run id and depth', async () => {
    const json = capture();
    expect(await runChat({ structure: 'Acme', role: 'exec-ceo', message: 'Run the month-end close', json: true, follow: true }, depsFor(c.t, c.owner.token, json))).toBe(0);
    const lines = json.out.map((line) => JSON.parse(line) as { type: string; run_id?: string; depth?: number; content: { tool?: string; args?: { run_id?: string } } });
    const call = lines.find((line) => line.type === 'tool_call' && line.content.tool === 'delegate' && line.depth === undefined)!;
    const cfoRun = call.content.args!.run_id;
    expect(lines.filter((line) => line.depth === 1).every((line) => line.run_id === cfoRun)).toBe(true);
    expect(lines.some((line) => line.depth === 2 && line.type === 'complete')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: 'complete' });
    expect(lines.at(-1)).not.toHaveProperty('depth');
  });

  it('org history shows who delegated a turn and what each delegation of a turn brought back; org log lists the delegations', async () => {
    const stream = await c.send('Run the month-end close', { roleId: 'exec-ceo' });
    await stream.ended;
    const ceoRun = String(stream.headers['x-org-run-id']);
    const ceo = capture();
    expect(await runHistory({ structure: 'Acme', role: 'exec-ceo', limit: 2 }, depsFor(c.t, c.owner.token, ceo))).toBe(0);
    const cfoCall = ceo.out.find((line) => line.trimStart().startsWith('→ Chief Financial Officer (exec-cfo): Ask the CFO for the signed-off close'));
    expect(cfoCall, ceo.out.join('\n')).toBeDefined();
    const cfoRun = (await c.history({ roleId: 'exec-cfo' })).find((message) => message.sender === 'user' && message.delegated_by?.run_id === ceoRun)!.run_id;
    expect(cfoCall).toMatch(new RegExp(`\\(run ${cfoRun}\\)$`));
    expect(ceo.out).toContainEqual(expect.stringMatching(/^ +← Chief Financial Officer \(exec-cfo\): ✔ Followed "Sign off the month-end close package"/));

    const cfo = capture();
    expect(await runHistory({ structure: 'Acme', role: 'exec-cfo', limit: 2 }, depsFor(c.t, c.owner.token, cfo))).toBe(0);
    expect(cfo.out).toContainEqual(expect.stringMatching(new RegExp(`› Ask the CFO for the signed-off close: .*\\(delegated by Chief Executive Officer \\(exec-ceo\\), run ${ceoRun}\\)$`, 's')));
    expect(cfo.out).toContainEqual(expect.stringMatching(/^ +→ Finance Controller \(exec-finance-controller\): Have the controller close the books/));

    const log = capture();
    expect(await runLog({ structure: 'Acme', limit: 200 }, depsFor(c.t, c.owner.token, log))).toBe(0);
    expect(log.out).toContainEqual(expect.stringMatching(/exec-ceo +delegation +Delegated to exec-cfo/));
    expect(log.out).toContainEqual(expect.stringMatching(/exec-cfo +delegation +Delegated to exec-finance-controller/));
  });
});
