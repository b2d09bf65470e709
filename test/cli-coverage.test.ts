/**
 * The commands that make the CLI cover the API (issue: "every API capability has a CLI
 * command"), each runner called with injected dependencies against a real listening
 * server: edit and move nodes, artifacts, chat history and the workspace log, drafts
 * approve/reject, members and invites, shared skills without `-s`, `login` asking
 * interactively, `doctor`, and hints that run as printed.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { runAgentsEdit, runAgentsMove, runAgentsRm } from '../src/cli/commands/agents.js';
import { runArtifactsGet, runArtifactsList } from '../src/cli/commands/artifacts.js';
import { runChat } from '../src/cli/commands/chat.js';
import { runDoctor } from '../src/cli/commands/doctor.js';
import { runDrafts, runDraftsApprove, runDraftsReject } from '../src/cli/commands/drafts.js';
import { runAgentsTimeline, runHistory, runLog } from '../src/cli/commands/history.js';
import { runLogin } from '../src/cli/commands/login.js';
import { runInvitesList, runInvitesRevoke, runMemberRemove, runMemberRole, runShare } from '../src/cli/commands/sharing.js';
import { runSkillsNew } from '../src/cli/commands/skills-author.js';
import { runSkillsFork, runSkillsProblems, runSkillsRestore, runSkillsRm } from '../src/cli/commands/skills.js';
import { runStructuresCreate, runStructuresDelete, runStructuresRename, runStructuresRestore, runStructuresShow } from '../src/cli/commands/structures.js';
import type { EventInput } from '../src/core/chat/types.js';
import type { AgentRuntime } from '../src/core/runtimes/types.js';
import { capture, depsFor } from './cli-helpers.js';
import { inviteTokenFor } from './helpers/outbox.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const TURN: EventInput[] = [
  { type: 'milestone', content: { title: 'Collected the numbers' } },
  { type: 'decision', content: { title: 'Book the venue', body: 'Book the venue by Friday.' } },
  { type: 'text', content: 'Done.' },
];

/** A runtime that writes a plan to the node's shelf, logs a milestone and a decision, and completes. */
const planner: AgentRuntime = {
  name: 'planner',
  async run(turn, emit, tools) {
    const name = await tools.writeArtifact('plan.md', `# Plan\n\n${turn.message}\n`, 'text/markdown');
    for (const event of TURN) await emit(event);
    await emit({ type: 'complete', content: { summary: 'Planned it', artifacts: [name] } });
  },
};

describe('CLI coverage of the API', () => {
  let t: TestInstance;
  let owner: { token: string; id: string };
  let ana: { token: string; id: string };
  let structureId: string;
  const out = capture();
  const as = (token: string, extra = {}) => depsFor(t, token, out, extra);

  beforeAll(async () => {
    t = await startInstance({
      listen: true,
      deps: { runtime: () => planner },
    });
    owner = await t.createUser('owner@example.com');
    ana = await t.createUser('ana@example.com');
    structureId = (await t.createStructure(owner.token, 'exec-team', 'Acme exec')).id;
  });
  afterAll(() => t.close());

  it('agents edit changes label, container URL (and back), starting context and parent; move moves a subtree', async () => {
    const client = new OrgClient({ url: t.url, token: owner.token });
    expect(await runAgentsEdit({ node: 'exec-cfo', label: 'Finance lead', containerUrl: 'http://127.0.0.1:8700', context: 'You run finance.' }, as(owner.token))).toBe(0);
    expect(out.text()).toBe('updated Finance lead (exec-cfo) in Acme exec: label "Finance lead", container http://127.0.0.1:8700, a starting context of 16 characters');
    out.clear();
    let node = (await client.getStructure(structureId)).agents.find((n) => n.role_id === 'exec-cfo')!;
    expect(node).toMatchObject({ label: 'Finance lead', container_url: 'http://127.0.0.1:8700', starting_context: 'You run finance.' });

    // The starting context in $EDITOR, and back to the built-in runtime.
    const editor = async (file: string) => writeFile(file, `${await readFile(file, 'utf8')}\nAlways cite the ledger.`);
    expect(await runAgentsEdit({ node: 'Finance lead', editContext: true, containerUrl: false }, as(owner.token, { openEditor: editor }))).toBe(0);
    node = (await client.getStructure(structureId)).agents.find((n) => n.role_id === 'exec-cfo')!;
    expect(node.container_url).toBeNull();
    expect(node.starting_context).toBe('You run finance.\nAlways cite the ledger.');
    out.clear();

    // Move the finance controller (a report of the CFO) under the COO, so the CFO can be deleted.
    const detail = await client.getStructure(structureId);
    const coo = detail.agents.find((n) => n.role_id === 'exec-coo')!;
    const reports = detail.agents.filter((n) => n.parent_id === node.id);
    expect(reports.length).toBeGreaterThan(0);
    for (const report of reports) expect(await runAgentsMove({ node: report.role_id, parent: 'exec-coo' }, as(owner.token))).toBe(0);
    expect(out.text()).toContain('parent exec-coo');
    out.clear();
    const moved = await client.getStructure(structureId);
    for (const report of reports) expect(moved.agents.find((n) => n.id === report.id)?.parent_id).toBe(coo.id);
    expect(await runAgentsRm({ roleId: 'exec-cfo' }, as(owner.token))).toBe(0);
    out.clear();
    await expect(runAgentsEdit({ node: 'exec-coo' }, as(owner.token))).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('nothing to change') });
    await expect(runAgentsMove({ node: 'exec-ceo', parent: 'exec-coo' }, as(owner.token))).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('structures rename, delete (into the archive) and restore a structure by name', async () => {
    const id = (await t.createStructure(owner.token, 'blank', 'Scratch pad')).id;
    const client = new OrgClient({ url: t.url, token: owner.token });
    out.clear();
    expect(await runStructuresRename({ structure: 'Scratch pad', name: 'Sketches' }, as(owner.token))).toBe(0);
    expect(out.text()).toBe(`renamed Scratch pad to Sketches (${id})`);
    out.clear();
    expect(await runStructuresDelete({ structure: 'Sketches' }, as(owner.token))).toBe(0);
    expect(out.text()).toBe(`deleted Sketches into the archive (restore it with: org structures restore ${id})`);
    expect((await client.listStructures()).structures.map((s) => s.id)).not.toContain(id);
    out.clear();
    expect(await runStructuresRestore({ structure: 'sketches' }, as(owner.token))).toBe(0);
    expect(out.text()).toBe(`restored Sketches (${id})`);
    expect((await client.getStructure(id)).name).toBe('Sketches');
    // Out of the way again: the tests below expect the owner's one structure.
    await client.deleteStructure(id);
    out.clear();
  });

  it('agents timeline shows what happened to a node and who did it, also once it is archived', async () => {
    out.clear();
    const client = new OrgClient({ url: t.url, token: owner.token });
    const detail = await client.getStructure(structureId);
    const ceo = detail.agents.find((n) => n.role_id === 'exec-ceo')!;
    const coo = detail.agents.find((n) => n.role_id === 'exec-coo')!;
    await client.addNode(structureId, { role_id: 'exec-intern', label: 'Intern', parent_id: ceo.id });
    await client.patchNode(structureId, 'exec-intern', { label: 'Summer intern', starting_context: 'You help.' });
    await client.patchNode(structureId, 'exec-intern', { parent: 'exec-coo' });
    expect((await client.getStructure(structureId)).agents.find((n) => n.role_id === 'exec-intern')?.parent_id).toBe(coo.id);

    // By label, while the node is live.
    expect(await runAgentsTimeline({ node: 'Summer intern', structure: 'Acme exec' }, as(owner.token))).toBe(0);
    expect(out.out[0]).toMatch(/^WHEN\s+WHAT\s+BY$/);
    expect(out.out.slice(1).map((line) => line.split(/\s{2,}/).slice(1))).toEqual([
      ['created', 'owner@example.com'],
      ['updated label, starting_context', 'owner@example.com'],
      ['moved', 'owner@example.com'],
    ]);
    out.clear();

    // By role id once archived, as JSON.
    await client.removeNode(structureId, 'exec-intern');
    expect(await runAgentsTimeline({ node: 'exec-intern', structure: 'Acme exec', json: true }, as(owner.token))).toBe(0);
    expect((JSON.parse(out.text()) as { type: string }[]).map((entry) => entry.type)).toEqual(['created', 'updated', 'moved', 'archived']);
    out.clear();
    await expect(runAgentsTimeline({ node: 'no-such-node', structure: 'Acme exec' }, as(owner.token))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('skills problems lists the files the server skips, and why', async () => {
    out.clear();
    expect(await runSkillsProblems({}, as(owner.token))).toBe(0);
    expect(out.text()).toBe('every skill file loads');
    out.clear();
    const seen = new Promise<void>((resolve) => {
      const stop = t.app.skills.subscribe((event) => {
        if (event.type === 'problem' && event.file === 'broken-one.md') {
          stop();
          resolve();
        }
      });
    });
    await writeFile(join(t.home, 'skills', 'broken-one.md'), '---\nname: Broken\nsummary: a: b\n---\nBody\n');
    await seen;
    expect(await runSkillsProblems({}, as(owner.token))).toBe(0);
    expect(out.out[0]).toMatch(/^FILE\s+PROBLEM$/);
    expect(out.out[1]).toMatch(/^broken-one\.md:3\s+front matter is not valid YAML.*a value with ": " in it needs quotes/);
    out.clear();
    expect(await runSkillsProblems({ json: true }, as(owner.token))).toBe(0);
    expect(JSON.parse(out.text())).toEqual([{ file: 'broken-one.md', line: 3, message: expect.stringContaining('front matter is not valid YAML') }]);
    out.clear();
    await rm(join(t.home, 'skills', 'broken-one.md'));
  });

  it('history, log and artifacts show what a turn did, and artifacts download to a file or stdout', async () => {
    expect(await runChat({ structure: 'Acme exec', role: 'exec-coo', message: 'plan the offsite' }, as(owner.token))).toBe(0);
    out.clear();

    expect(await runHistory({ structure: 'Acme exec', role: 'exec-coo' }, as(owner.token))).toBe(0);
    expect(out.out[0]).toBe('Acme exec · Chief Operating Officer (exec-coo) — 2 message(s), oldest first');
    expect(out.out[1]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}› plan the offsite$/);
    expect(out.out[2]).toMatch(/✔ Planned it$/);
    expect(out.out[3]).toContain('artifacts: plan.md');
    out.clear();
    expect(await runHistory({ structure: 'Acme exec', role: 'exec-coo', json: true, limit: 1 }, as(owner.token))).toBe(0);
    expect(JSON.parse(out.text())).toEqual([expect.objectContaining({ sender: 'agent', status: 'complete', summary: 'Planned it' })]);
    out.clear();
    expect(await runHistory({ structure: 'Acme exec', role: 'exec-coo', limit: 1 }, as(owner.token))).toBe(0);
    const older = /older messages: (org history 'Acme exec' exec-coo --before [0-9a-f-]{36})/.exec(out.errText())?.[1];
    expect(older).toBeDefined();
    out.clear();
    // The printed paging command works: it shows the user's message before the reply.
    const before = /--before (\S+)/.exec(older!)![1]!;
    expect(await runHistory({ structure: 'Acme exec', role: 'exec-coo', before }, as(owner.token))).toBe(0);
    expect(out.text()).toContain('› plan the offsite');
    expect(out.text()).not.toContain('Planned it');
    out.clear();

    expect(await runLog({ structure: 'Acme exec' }, as(owner.token))).toBe(0);
    expect(out.out[0]).toMatch(/^WHEN\s+NODE\s+TYPE\s+TITLE$/);
    expect(out.text()).toMatch(/exec-coo\s+decision\s+Book the venue — Book the venue by Friday\./);
    expect(out.text()).toMatch(/exec-coo\s+milestone\s+Collected the numbers/);
    out.clear();

    expect(await runArtifactsList({ node: 'exec-coo', structure: 'Acme exec' }, as(owner.token))).toBe(0);
    expect(out.text()).toMatch(/plan\.md\s+\d+ B\s+text\/markdown/);
    expect(out.errText()).toContain("download one with: org artifacts get exec-coo plan.md -s 'Acme exec'");
    out.clear();
    const dir = await mkdtemp(join(tmpdir(), 'org-artifact-'));
    expect(await runArtifactsGet({ node: 'exec-coo', name: 'plan.md', structure: 'Acme exec' }, as(owner.token, { cwd: dir }))).toBe(0);
    expect(await readFile(join(dir, 'plan.md'), 'utf8')).toBe('# Plan\n\nplan the offsite\n');
    await expect(runArtifactsGet({ node: 'exec-coo', name: 'plan.md', structure: 'Acme exec' }, as(owner.token, { cwd: dir }))).rejects.toMatchObject({ code: 'conflict' });
    out.clear();
    const bytes: Uint8Array[] = [];
    expect(await runArtifactsGet({ node: 'exec-coo', name: 'plan.md', structure: 'Acme exec', output: '-' }, as(owner.token, { writeBytes: (data: Uint8Array) => bytes.push(data) }))).toBe(0);
    expect(Buffer.concat(bytes).toString()).toBe('# Plan\n\nplan the offsite\n');
    await expect(runArtifactsGet({ node: 'exec-coo', name: 'nope.md', structure: 'Acme exec' }, as(owner.token, { cwd: dir }))).rejects.toMatchObject({ code: 'not_found' });
  });

  it('drafts list, approve and reject one draft without the queue', async () => {
    const client = new OrgClient({ url: t.url, token: owner.token });
    for (const slug of ['plan-team-offsite', 'book-a-venue']) {
      await client.saveSkill({ structure_id: structureId, slug, frontmatter: { type: 'skill', name: slug, status: 'draft', structure_id: structureId }, body: '## [a] Step 1: A\n' });
    }
    expect(await runDrafts({ list: true }, as(owner.token))).toBe(0);
    expect(out.text()).toMatch(/plan-team-offsite/);
    expect(out.errText()).toMatch(/approve one with: org drafts approve (plan-team-offsite|book-a-venue)/);
    out.clear();
    expect(await runDraftsApprove({ slug: 'plan-team-offsite' }, as(owner.token))).toBe(0);
    expect(out.text()).toBe(`approved plan-team-offsite: agents of Acme exec (${structureId.slice(0, 8)}) now match it`);
    expect((await client.getSkill('plan-team-offsite')).frontmatter.status).toBe('complete');
    out.clear();
    expect(await runDraftsReject({ slug: 'book-a-venue' }, as(owner.token))).toBe(0);
    expect(out.text()).toBe('rejected book-a-venue (undo with: org skills restore book-a-venue)');
    await expect(client.getSkill('book-a-venue')).rejects.toMatchObject({ code: 'not_found' });
    out.clear();
    await expect(runDraftsApprove({ slug: 'plan-team-offsite' }, as(owner.token))).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('is not a draft') });
  });

  it('members role and rm, invites list and revoke', async () => {
    expect(await runShare({ email: 'ana@example.com', role: 'operator', structure: 'Acme exec' }, as(owner.token))).toBe(0);
    const client = new OrgClient({ url: t.url, token: owner.token });
    await client.acceptInvite(await inviteTokenFor(t.home, 'ana@example.com'));
    out.clear();
    expect(await runMemberRole({ member: 'ana@example.com', role: 'owner', structure: 'Acme exec' }, as(owner.token))).toBe(0);
    expect(out.text()).toBe('ana@example.com is now owner of Acme exec (was operator)');
    out.clear();
    await expect(runMemberRole({ member: 'ana@example.com', role: 'boss', structure: 'Acme exec' }, as(owner.token))).rejects.toMatchObject({
      message: 'the role must be one of viewer, operator, owner (got "boss")',
    });
    expect(await runMemberRemove({ member: 'owner@example.com', structure: 'Acme exec' }, as(ana.token))).toBe(0);
    expect(out.text()).toBe("removed owner@example.com (owner) from Acme exec; invite them again with: org share owner@example.com --role owner -s 'Acme exec'");
    out.clear();
    // The last owner stays: the server's words come through.
    await expect(runMemberRemove({ member: ana.id.slice(0, 8), structure: 'Acme exec' }, as(ana.token))).rejects.toMatchObject({
      code: 'conflict',
      message: 'the last owner of a structure cannot be removed: make another member owner first',
    });

    expect(await runShare({ email: 'cy@example.com', role: 'viewer', structure: 'Acme exec' }, as(ana.token))).toBe(0);
    out.clear();
    expect(await runInvitesList({ structure: 'Acme exec' }, as(ana.token))).toBe(0);
    expect(out.text()).toMatch(/cy@example\.com\s+viewer\s+pending/);
    out.clear();
    expect(await runInvitesRevoke({ invite: 'cy@example.com', structure: 'Acme exec' }, as(ana.token))).toBe(0);
    expect(out.text()).toBe('revoked the invite of cy@example.com to Acme exec; its token no longer works');
    await expect(new OrgClient({ url: t.url }).acceptInvite(await inviteTokenFor(t.home, 'cy@example.com'))).rejects.toMatchObject({ code: 'gone' });
    out.clear();
  });

  it('an instance skill: rm says to fork it; fork, then rm and restore the fork with -s; a structure without template is blank', async () => {
    expect(await runStructuresCreate({ name: 'Blank one' }, as(ana.token))).toBe(0);
    expect(out.text()).toContain('from blank, 0 node(s)');
    out.clear();
    const client = new OrgClient({ url: t.url, token: ana.token });
    expect((await client.listStructures()).structures.length).toBe(2);
    await t.app.skills.upsert({ slug: 'shared-skill', frontmatter: { type: 'skill', name: 'Shared', status: 'complete' }, body: '## [a] Step 1: A\n' });
    // Shared by every structure: only the instance administrator changes it.
    await expect(runSkillsRm({ slug: 'shared-skill' }, as(ana.token))).rejects.toMatchObject({ code: 'instance_skill', message: expect.stringContaining('org skills fork shared-skill') });
    expect(await t.app.skills.get('shared-skill')).toBeDefined();
    expect(await runSkillsFork({ slug: 'shared-skill', structure: 'Blank one' }, as(ana.token))).toBe(0);
    expect(out.text()).toBe('forked shared-skill into this structure as shared-skill: change it with  org skills edit shared-skill');
    out.clear();
    expect(await runSkillsRm({ slug: 'shared-skill', structure: 'Blank one' }, as(ana.token))).toBe(0);
    expect(out.text()).toBe('deleted shared-skill (undo with: org skills restore shared-skill)');
    out.clear();
    expect(await runSkillsRestore({ slug: 'shared-skill' }, as(ana.token))).toBe(0);
    expect(out.text()).toBe('restored shared-skill (complete)');
    out.clear();
    expect((await client.getSkill('shared-skill', (await client.listStructures()).structures.find((s) => s.name === 'Blank one')!.id)).frontmatter).toMatchObject({ forked_from: 'shared-skill' });
  });

  it('hints print commands that run as printed (names with spaces are quoted)', async () => {
    expect(await runStructuresShow({ structure: 'Blank one' }, as(ana.token))).toBe(0);
    const hint = out.out.find((line) => line.includes('add one with: '))!;
    out.clear();
    const command = /add one with: (.*)\)$/.exec(hint)![1]!;
    expect(command).toBe("org agents add team-lead --label 'Team lead' -s 'Blank one'");
    // The shell reads it back as the words the CLI meant.
    const words = execFileSync('sh', ['-c', `for a in ${command}; do printf '%s\\n' "$a"; done`], { encoding: 'utf8' }).trim().split('\n');
    expect(words).toEqual(['org', 'agents', 'add', 'team-lead', '--label', 'Team lead', '-s', 'Blank one']);
  });

  it('skills new reopens the editor on invalid text and saves only a valid skill; abandoning exits non-zero', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-new-'));
    await mkdir(join(home, 'skills'));
    const colon = (text: string) => text.replace("summary: ''", 'summary: Plan a team offsite: venue, budget, agenda and travel.');
    const quoted = (text: string) => text.replace(/^summary: .*$/m, "summary: 'Plan a team offsite: venue, budget, agenda and travel.'");
    const edits = [colon, quoted];
    const asked: string[] = [];
    const deps = as(owner.token, {
      cwd: home,
      interactive: true,
      openEditor: async (file: string) => writeFile(file, edits.shift()!(await readFile(file, 'utf8'))),
      prompt: async (question: string) => {
        asked.push(question);
        return '';
      },
    });
    expect(await runSkillsNew({ slug: 'plan-offsite', home }, deps)).toBe(0);
    // The YAML error named its own line (the summary, line 9), then the editor opened again.
    expect(out.errText()).toContain('skills/plan-offsite.md:9: error: front matter is not valid YAML');
    expect(asked).toEqual(['The skill is not valid yet. Edit it again? [Y/n] ']);
    expect(out.text()).toBe('created skills/plan-offsite.md (a draft until its status is complete)');
    expect(await readFile(join(home, 'skills', 'plan-offsite.md'), 'utf8')).toContain("summary: 'Plan a team offsite: venue, budget, agenda and travel.'");
    out.clear();

    // Abandoned (n): non-zero, nothing written to skills/.
    const abandon = as(owner.token, { cwd: home, interactive: true, openEditor: async (file: string) => writeFile(file, colon(await readFile(file, 'utf8'))), prompt: async () => 'n' });
    await expect(runSkillsNew({ slug: 'book-travel', home }, abandon)).rejects.toMatchObject({ code: 'invalid_request', exitCode: 2, message: expect.stringMatching(/^abandoned: nothing was saved; your text is in .*book-travel\.md$/) });
    expect(await readdir(join(home, 'skills'))).toEqual(['plan-offsite.md']);
    // No terminal to ask: the same, without waiting for an answer.
    const script = as(owner.token, { cwd: home, interactive: false, openEditor: async (file: string) => writeFile(file, colon(await readFile(file, 'utf8'))) });
    await expect(runSkillsNew({ slug: 'book-travel', home }, script)).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('the skill is not valid (1 error(s) above)') });
    out.clear();
  });

  it('login asks for the URL and the token when a person is at the terminal', async () => {
    const configDir = await mkdtemp(join(tmpdir(), 'org-login-'));
    const asked: { question: string; secret: boolean }[] = [];
    const answers = [t.url, owner.token];
    const deps = {
      output: out.output,
      env: { ORG_CONFIG_DIR: configDir },
      interactive: true,
      prompt: async (question: string, options: { secret?: boolean } = {}) => {
        asked.push({ question, secret: Boolean(options.secret) });
        return answers.shift() ?? '';
      },
    };
    expect(await runLogin({}, deps)).toBe(0);
    expect(asked).toEqual([
      { question: 'Server URL [http://127.0.0.1:4780]: ', secret: false },
      { question: 'Token (org_u_…, shown by the first org serve or org users add): ', secret: true },
    ]);
    expect(out.text()).toContain(`logged in to ${t.url} as owner@example.com`);
    expect(JSON.parse(await readFile(join(configDir, 'credentials.json'), 'utf8'))).toMatchObject({ default: t.url });
    out.clear();
    // Without a terminal it says what to pass instead of waiting.
    await expect(runLogin({}, { ...deps, interactive: false, env: { ORG_CONFIG_DIR: join(configDir, 'none') } })).rejects.toMatchObject({
      message: 'give the server with --url, e.g. org login --url http://127.0.0.1:4780',
    });
  });

  it('doctor checks the server, the token, the home and git, and fails on what is broken', async () => {
    const home = await mkdtemp(join(tmpdir(), 'org-doctor-'));
    expect(await runDoctor({ json: true, home }, as(owner.token))).toBe(0);
    const report = JSON.parse(out.text()) as { ok: boolean; checks: { name: string; status: string; detail: string }[] };
    out.clear();
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.name === 'server')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/answers: org test, \d+ skill\(s\)$/) });
    expect(report.checks.find((c) => c.name === 'server')?.detail).toContain(`${t.url} (from ORG_URL) answers: org test`);
    expect(report.checks.map((c) => c.name)).not.toContain('skill commits');
    expect(report.checks.find((c) => c.name === 'token')).toMatchObject({ status: 'ok', detail: expect.stringContaining('owner@example.com') });
    expect(report.checks.find((c) => c.name === 'home')).toMatchObject({ status: 'warn' }); // no skills/ there
    expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['org', 'node', 'git', 'editor']));

    expect(await runDoctor({ token: 'org_u_wrongwrongwrongwrongwrongwrongwrong' }, as(owner.token))).toBe(1);
    expect(out.text()).toMatch(/^✗ token +the token from --token is unknown or revoked$/m);
    expect(out.text()).toContain('→ log in again with: org login --url');
    out.clear();
  });
});
