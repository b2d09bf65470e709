/**
 * The org chart at work with the built-in local runtime and the bundled playbooks (API.md
 * §10, the Demo's exec team): the CEO's month-end close hands step 1 to the CFO, whose
 * playbook hands the close itself to the finance controller; an incident goes from the CTO
 * to the engineering lead. Every turn is an ordinary turn of its node, each delegated
 * message carries the root run's request, the milestones carry what came back, the run
 * report says who did what, and the workspace log records each delegation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatEvent, HistoryMessage, LogEntry } from '../src/core/schemas/index.js';
import { startChatWithPackageSkills } from './helpers/package-skills.js';
import type { ChatFixture } from './helpers/chat.js';

const isDelegation = (event: ChatEvent) => (event.type === 'tool_call' || event.type === 'tool_result') && event.content.tool === 'delegate';
const argsOf = (event: ChatEvent | undefined) => (event?.type === 'tool_call' ? (event.content.args as { role_id: string; message: string; run_id: string | null }) : undefined);
const resultOf = (event: ChatEvent | undefined) => (event?.type === 'tool_result' ? (event.content.result as { run_id: string; role_id: string; status: string; summary: string; artifacts: string[] }) : undefined);

describe('the exec team delegates down the org chart (local runtime, bundled playbooks)', () => {
  let c: ChatFixture;

  beforeAll(async () => {
    c = await startChatWithPackageSkills('org-demo-delegation-');
  }, 60_000);
  afterAll(async () => {
    await c?.close();
  });

  /** The agent message of a run, with its events. */
  const agentOf = async (roleId: string, runId: string): Promise<HistoryMessage> => (await c.agentMessage(runId, roleId))!;

  it('the CEO hands the month-end close to the CFO, who hands the close of the books to the finance controller; each answer comes back up', async () => {
    const stream = await c.send('Run the month-end close', { roleId: 'exec-ceo' });
    await stream.ended;
    const ceoRun = String(stream.headers['x-org-run-id']);
    const ceo = await agentOf('exec-ceo', ceoRun);
    expect(ceo.status).toBe('complete');
    const [toCfo, fromCfo] = ceo.events.filter(isDelegation);
    expect(argsOf(toCfo)).toMatchObject({
      role_id: 'exec-cfo',
      message:
        'Ask the CFO for the signed-off close: Sign off the month-end close package for the month that just ended: have the books closed and reconciled, review the variances, and send back the signed-off package with the variance notes.\n\nRequest: Run the month-end close',
    });
    const cfoRun = argsOf(toCfo)!.run_id!;
    expect(resultOf(fromCfo)).toMatchObject({ run_id: cfoRun, role_id: 'exec-cfo', status: 'complete', summary: expect.stringMatching(/^Followed "Sign off the month-end close package" through 3 step\(s\) with exec-finance-controller/) });

    // The CFO's turn: delegated by the CEO, it hands step 1 to the controller with the root request.
    const cfo = await agentOf('exec-cfo', cfoRun);
    const cfoUser = (await c.history({ roleId: 'exec-cfo' })).find((message) => message.sender === 'user' && message.run_id === cfoRun);
    expect(cfoUser).toMatchObject({ origin: 'delegation:exec-ceo', delegated_by: { role_id: 'exec-ceo', run_id: ceoRun, root_run_id: ceoRun } });
    const [toController, fromController] = cfo.events.filter(isDelegation);
    expect(argsOf(toController)!.role_id).toBe('exec-finance-controller');
    expect(argsOf(toController)!.message).toMatch(/^Have the controller close the books: Close the books for the month: .*\n\nRequest: Run the month-end close$/s);
    const controllerRun = argsOf(toController)!.run_id!;
    expect(resultOf(fromController)).toMatchObject({ status: 'complete', summary: expect.stringMatching(/^Followed "Run the month-end close" through 5 step\(s\)/) });
    const controllerUser = (await c.history({ roleId: 'exec-finance-controller' })).find((message) => message.run_id === controllerRun && message.sender === 'user');
    expect(controllerUser).toMatchObject({ origin: 'delegation:exec-cfo', delegated_by: { role_id: 'exec-cfo', run_id: cfoRun, root_run_id: ceoRun } });

    // Milestones carry what came back; the CEO's summary names who helped.
    const milestones = ceo.events.filter((event) => event.type === 'milestone').map((event) => (event.content as { title: string }).title);
    expect(milestones[0]).toMatch(/^Step 1: Ask the CFO for the signed-off close — Chief Financial Officer \(exec-cfo\): Followed "Sign off the month-end close package"/);
    expect(ceo.summary).toMatch(/^Followed "Run the month-end close with the exec team" through 3 step\(s\) with exec-cfo; the run report is run-report-/);

    // The run report says who did what.
    const report = await c.open(`/api/org/structures/${c.structure.id}/agents/exec-ceo/artifacts/${ceo.artifacts[0]!}`, { token: c.owner.token });
    await report.ended;
    expect(report.text).toContain('## Who did what');
    expect(report.text).toContain('- Chief Executive Officer (exec-ceo): Step 2, Step 3');
    expect(report.text).toMatch(/- Chief Financial Officer \(exec-cfo\): Step 1 \(Ask the CFO for the signed-off close\) — Followed "Sign off the month-end close package"/);
    expect(report.text).toContain(`Delegated to Chief Financial Officer (exec-cfo), run ${cfoRun}: done`);

    // The workspace log records both delegations.
    const log = await c.t.server.inject({ method: 'GET', url: `/api/org/structures/${c.structure.id}/log?limit=200`, headers: c.t.auth(c.owner.token) });
    const delegations = log.json<{ entries: LogEntry[] }>().entries.filter((entry) => entry.type === 'delegation');
    expect(delegations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ role_id: 'exec-ceo', run_id: ceoRun, delegation: { role_id: 'exec-cfo', run_id: cfoRun } }),
        expect.objectContaining({ role_id: 'exec-cfo', run_id: cfoRun, delegation: { role_id: 'exec-finance-controller', run_id: controllerRun } }),
      ]),
    );
  });

  it('an incident goes from the CTO to the engineering lead, who triages it with the root request', async () => {
    const stream = await c.send('We have a SEV1: the API is down', { roleId: 'exec-cto' });
    await stream.ended;
    const cto = await agentOf('exec-cto', String(stream.headers['x-org-run-id']));
    const [call, result] = cto.events.filter(isDelegation);
    expect(argsOf(call)).toMatchObject({ role_id: 'exec-eng-lead', message: expect.stringMatching(/^Have the engineering lead triage the incident: .*\n\nRequest: We have a SEV1: the API is down$/s) });
    expect(resultOf(result)).toMatchObject({ role_id: 'exec-eng-lead', status: 'complete', summary: expect.stringMatching(/^Followed "Triage a production incident" through 5 step\(s\)/) });
    expect(cto.summary).toMatch(/^Followed "Take command of a production incident" through 3 step\(s\) with exec-eng-lead/);
  });

  it('a playbook step naming a node the structure does not have is refused, and the playbook goes on', async () => {
    const write = await c.t.server.inject({
      method: 'POST',
      url: '/api/org/knowledge/skills',
      headers: c.t.auth(c.owner.token),
      payload: {
        structure_id: c.structure.id,
        slug: 'ask-the-board',
        frontmatter: { type: 'skill', name: 'Ask the board', status: 'complete', structure_id: c.structure.id, triggers: ['ask the board for approval'] },
        body: '## [board] Step 1: Ask the board\nDelegate to exec-board.\nApprove the budget.\n\n## [wrap] Step 2: Wrap up\nWrite down the answer.\n',
      },
    });
    expect(write.statusCode, write.body).toBeLessThan(300);
    const stream = await c.send('/ask-the-board', { roleId: 'exec-ceo' });
    await stream.ended;
    const ceo = await agentOf('exec-ceo', String(stream.headers['x-org-run-id']));
    const [call, result] = ceo.events.filter(isDelegation);
    expect(argsOf(call)).toMatchObject({ role_id: 'exec-board', run_id: null });
    expect(resultOf(result)).toMatchObject({ run_id: null, status: 'error', summary: 'there is no node exec-board in Acme' });
    expect(ceo.events.filter((event) => event.type === 'milestone').map((event) => (event.content as { title: string }).title)).toEqual([
      'Step 1: Ask the board — exec-board could not: there is no node exec-board in Acme',
      'Step 2: Wrap up',
    ]);
    expect(ceo.status).toBe('complete');
  });
});
