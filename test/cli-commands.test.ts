/**
 * The command runners against a real listening server (startInstance({listen: true})),
 * each called with an injected Output and environment, as the DESIGN asks: connection
 * resolution and login, admin commands, skills, drafts, non-interactive chat, init.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OrgClient } from '../src/client/index.js';
import { runAgentsAdd, runAgentsList, runAgentsRestore, runAgentsRm } from '../src/cli/commands/agents.js';
import { runChat } from '../src/cli/commands/chat.js';
import { draftActions, runDrafts } from '../src/cli/commands/drafts.js';
import { runInit } from '../src/cli/commands/init.js';
import { listShippedSkills } from '../src/core/skills/index.js';
import { runKeysCreate, runKeysList, runKeysRevoke } from '../src/cli/commands/keys.js';
import { runLogin, runWhoami } from '../src/cli/commands/login.js';
import { runInvitesAccept, runMembers, runShare, runUsersAdd } from '../src/cli/commands/sharing.js';
import { runSkillsEdit, runSkillsNew } from '../src/cli/commands/skills-author.js';
import { runSkillsDeleted, runSkillsHistory, runSkillsList, runSkillsRestore, runSkillsRm, runSkillsSearch, runSkillsShow } from '../src/cli/commands/skills.js';
import { runAudit } from '../src/cli/commands/audit.js';
import { runWebhooksAdd, runWebhooksDeliveries, runWebhooksList, runWebhooksRemove } from '../src/cli/commands/webhooks.js';
import { runStructuresCreate, runStructuresList, runStructuresShow } from '../src/cli/commands/structures.js';
import { resolveConnection } from '../src/cli/connection.js';
import { main } from '../src/cli/main.js';
import type { EventInput } from '../src/core/chat/types.js';
import { saveLogin } from '../src/core/credentials.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import { capture, depsFor, EVERY_EVENT } from './cli-helpers.js';
import { REPO_ROOT } from './helpers/child.js';
import { inviteTokenFor } from './helpers/outbox.js';
import { ADMIN_TOKEN, startInstance, type TestInstance } from './helpers/instance.js';

const FAILING: EventInput[] = [
  { type: 'text', content: 'trying' },
  { type: 'error', content: { message: 'boom' } },
];

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 1}`;
}

describe('command runners against a real server', () => {
  let t: TestInstance;
  let alice: string;
  let structureId: string;
  const out = capture();
  const as = (token: string, extra = {}) => depsFor(t, token, out, extra);

  beforeAll(async () => {
    t = await startInstance({
      listen: true,
      deps: { runtime: () => createScriptedRuntime((turn) => (turn.message.startsWith('fail') ? FAILING : EVERY_EVENT)) },
    });
    // users add (administrator): the token is printed once, with a warning on stderr.
    expect(await runUsersAdd({ email: 'alice@example.com' }, as(ADMIN_TOKEN))).toBe(0);
    alice = /org_u_[0-9A-Za-z]+/.exec(out.text())?.[0] ?? '';
    expect(alice).not.toBe('');
    expect(out.errText()).toContain('shown only once');
    out.clear();
    expect(await runStructuresCreate({ name: 'Acme', template: 'exec-team' }, as(alice))).toBe(0);
    structureId = /\(([0-9a-f-]{36})\)/.exec(out.text())?.[1] ?? '';
    expect(out.text()).toContain('you are its owner');
    out.clear();
  });
  afterAll(() => t.close());

  describe('connection', () => {
    it('login checks the token, saves it with mode 0600, and whoami uses it', async () => {
      const configDir = await mkdtemp(join(tmpdir(), 'org-cfg-'));
      const deps = { output: out.output, env: { ORG_CONFIG_DIR: configDir }, interactive: false };
      expect(await runLogin({ url: `${t.url}/`, token: alice, email: 'alice@example.com' }, deps)).toBe(0);
      const file = join(configDir, 'credentials.json');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(await readFile(file, 'utf8')) as { default: string; servers: Record<string, { token: string }> };
      expect(saved.default).toBe(t.url);
      expect(saved.servers[t.url]?.token).toBe(alice);
      out.clear();
      expect(await runWhoami({}, deps)).toBe(0);
      expect(out.text()).toContain(`server: ${t.url} (from the saved login)`);
      expect(out.text()).toContain('token:  org_u_');
      expect(out.text()).toContain('(from the saved login)');
      expect(out.text()).toContain('as:     alice@example.com');
      expect(out.text()).toMatch(/Acme\s+owner\s+7/);
      out.clear();
      await expect(runLogin({ url: t.url, token: 'org_u_nonononononononononononononononono' }, deps)).rejects.toMatchObject({ code: 'unauthorized' });
    });

    it('resolves flags over environment over the credentials file', async () => {
      const configDir = await mkdtemp(join(tmpdir(), 'org-cfg-'));
      await saveLogin(configDir, 'http://saved.example:1', { token: 'saved-token' });
      const env = { ORG_CONFIG_DIR: configDir };
      expect(await resolveConnection({}, env)).toMatchObject({ url: 'http://saved.example:1', token: 'saved-token', urlSource: 'credentials', tokenSource: 'credentials' });
      expect(await resolveConnection({}, { ...env, ORG_URL: 'http://env.example:2', ORG_TOKEN: 'env-token' })).toMatchObject({ url: 'http://env.example:2', token: 'env-token', urlSource: 'env' });
      expect(await resolveConnection({ url: 'http://flag.example:3', token: 'flag-token' }, { ...env, ORG_URL: 'http://env.example:2' })).toMatchObject({
        url: 'http://flag.example:3',
        token: 'flag-token',
        urlSource: 'flag',
        tokenSource: 'flag',
      });
      // A URL given without a token uses the token saved for that URL.
      expect(await resolveConnection({ url: 'http://saved.example:1/' }, env)).toMatchObject({ token: 'saved-token' });
      expect(await resolveConnection({}, { ORG_CONFIG_DIR: join(configDir, 'none') })).toMatchObject({ url: 'http://127.0.0.1:4780', urlSource: 'default', tokenSource: 'none' });
    });

    it('a server that is not running: one line naming the command that starts it, and exit code 7', async () => {
      const url = await closedPortUrl();
      const local = capture();
      const code = await main(['node', 'org', 'structures', 'list', '--url', url, '--token', 'x'], local.output);
      expect(code).toBe(7);
      expect(local.err).toEqual([`org: no org server at ${url} — start one with: org serve`]);
      const notFound = capture();
      expect(await main(['node', 'org', 'skills', 'show', 'nope', '--url', t.url, '--token', alice], notFound.output)).toBe(4);
      expect(notFound.err).toEqual(['org: skill nope not found']);
    });
  });

  describe('admin', () => {
    it('structures list, show (the node tree with labels and states)', async () => {
      expect(await runStructuresList({ json: true }, as(alice))).toBe(0);
      expect(JSON.parse(out.text())).toEqual([expect.objectContaining({ id: structureId, name: 'Acme', role: 'owner', node_count: 7 })]);
      out.clear();
      expect(await runStructuresShow({ structure: 'acme' }, as(alice))).toBe(0);
      const lines = out.out;
      expect(lines[0]).toBe(`Acme  (${structureId})`);
      expect(lines).toContain('Chief Executive Officer  exec-ceo  ○ idle');
      expect(lines).toContain('├── Chief Financial Officer  exec-cfo  ○ idle');
      expect(lines).toContain('│   └── Finance Controller  exec-finance-controller  ○ idle');
      expect(lines.some((line) => line.startsWith('└── '))).toBe(true);
      out.clear();
    });

    it('agents add, rm (archived), restore', async () => {
      expect(await runAgentsAdd({ roleId: 'exec-intern', label: 'Intern', parent: 'exec-cfo', context: 'You help the CFO.' }, as(alice))).toBe(0);
      expect(out.text()).toBe('added Intern (exec-intern) to Acme under exec-cfo');
      out.clear();
      // Given no position, the node sits one rank below its parent (the server places it; the canvas shows it there).
      const placed = (await new OrgClient({ url: t.url, token: alice }).getStructure(structureId)).agents;
      const [cfo, intern] = ['exec-cfo', 'exec-intern'].map((role) => placed.find((node) => node.role_id === role)!);
      expect(intern!.y).toBe(cfo!.y + 180);
      await expect(runAgentsAdd({ roleId: 'exec-orphan', label: 'Orphan' }, as(alice))).rejects.toMatchObject({ code: 'invalid_request' });
      expect(await runAgentsRm({ roleId: 'Intern' }, as(alice))).toBe(0);
      expect(out.text()).toContain('removed Intern (exec-intern)');
      out.clear();
      expect(await runAgentsList({ archived: true, json: true }, as(alice))).toBe(0);
      expect(JSON.parse(out.text())).toEqual([expect.objectContaining({ role_id: 'exec-intern' })]);
      out.clear();
      expect(await runAgentsRestore({ roleId: 'exec-intern' }, as(alice))).toBe(0);
      expect(out.text()).toBe('restored Intern (exec-intern) in Acme');
      out.clear();
      await expect(runAgentsRm({ roleId: 'exec-cfo' }, as(alice))).rejects.toMatchObject({ code: 'conflict' }); // has children
    });

    it('keys create (token once, with a warning), list (no token), revoke by id prefix', async () => {
      expect(await runKeysCreate({ node: 'exec-cfo', label: 'desktop' }, as(alice))).toBe(0);
      const token = /org_mcp_[0-9A-Za-z]{32,}/.exec(out.text())?.[0];
      expect(token).toBeDefined();
      expect(out.errText()).toContain('shown only once');
      const keyId = /created MCP key ([0-9a-f-]{36})/.exec(out.text())?.[1] ?? '';
      out.clear();
      expect(await runKeysList({ node: 'exec-cfo', json: true }, as(alice))).toBe(0);
      const keys = JSON.parse(out.text()) as { id: string; label: string }[];
      expect(keys).toEqual([expect.objectContaining({ id: keyId, label: 'desktop', prefix: 'org_mcp_', hint: token!.slice(8, 12) })]);
      expect(out.text()).not.toContain(token!);
      out.clear();
      // The table shows the token's start (prefix and hint), never the token.
      expect(await runKeysList({ node: 'exec-cfo' }, as(alice))).toBe(0);
      expect(out.text()).toContain(`${token!.slice(0, 12)}…`);
      expect(out.text()).not.toContain(token!);
      out.clear();
      // whoami with the node key itself: valid, but not a person.
      expect(await runWhoami({ token: token! }, as(alice))).toBe(0);
      expect(out.text()).toContain('as:     mcp');
      out.clear();
      expect(await runKeysRevoke({ node: 'exec-cfo', key: keyId.slice(0, 8) }, as(alice))).toBe(0);
      out.clear();
      expect(await runKeysList({ node: 'exec-cfo' }, as(alice))).toBe(0);
      expect(out.text()).toContain('has no MCP keys');
      out.clear();
    });

    it('webhooks add (secret once), list, deliveries after a delivered turn, remove by id prefix', async () => {
      // A receiver that accepts every delivery.
      const receiver = createHttpServer((request, response) => {
        request.resume();
        request.on('end', () => response.writeHead(204).end());
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const address = receiver.address();
      const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks`;
      try {
        expect(await runWebhooksAdd({ structure: 'Acme', endpoint: url, events: 'run.failed' }, as(alice))).toBe(0);
        const id = /added webhook ([0-9a-f-]{36})/.exec(out.text())?.[1] ?? '';
        expect(out.text()).toMatch(/signing secret: whsec_/);
        expect(out.errText()).toContain('shown only once');
        out.clear();
        await expect(runWebhooksAdd({ structure: 'Acme', endpoint: url, events: 'run.exploded' }, as(alice))).rejects.toThrow(/--events/);
        expect(await runWebhooksList({ structure: 'Acme', json: true }, as(alice))).toBe(0);
        const listed = JSON.parse(out.text()) as { id: string; url: string; events: string[] }[];
        expect(listed).toEqual([expect.objectContaining({ id, url, events: ['run.failed'] })]);
        expect(out.text()).not.toContain('whsec_');
        out.clear();

        const delivered = new Promise<void>((resolve) => {
          const stop = t.app.webhooks.onDelivery((delivery) => {
            if (delivery.webhook_id !== id || delivery.status !== 'delivered') return;
            stop();
            resolve();
          });
        });
        const turn = await t.server.inject({
          method: 'POST',
          url: '/api/org/chat/message/sync',
          headers: t.auth(alice),
          // A failing turn: it learns no draft that the chat tests below would meet.
          payload: { structure_id: structureId, role_id: 'exec-cfo', message: 'fail to close April' },
        });
        expect(turn.statusCode, turn.body).toBe(200);
        await delivered;
        expect(await runWebhooksDeliveries({ structure: 'Acme', webhook: id.slice(0, 8) }, as(alice))).toBe(0);
        expect(out.text()).toMatch(/run\.failed\s+delivered\s+204\s+1/);
        out.clear();

        expect(await runWebhooksRemove({ structure: 'Acme', webhook: id.slice(0, 8) }, as(alice))).toBe(0);
        expect(out.text()).toContain(`removed webhook ${id}`);
        out.clear();
        expect(await runWebhooksList({ structure: 'Acme' }, as(alice))).toBe(0);
        expect(out.text()).toContain('has no webhooks');
        out.clear();
      } finally {
        await new Promise<void>((resolve) => receiver.close(() => resolve()));
      }
    });

    it('audit prints the structure’s entries newest first, filters, pages, and --all for the administrator', async () => {
      expect(await runAudit({ structure: 'Acme', action: 'structure.' }, as(alice))).toBe(0);
      expect(out.text()).toMatch(/structure\.create\s+alice@example\.com\s+structure [0-9a-f-]{36}/);
      out.clear();
      expect(await runAudit({ structure: 'Acme', limit: 1, json: true }, as(alice))).toBe(0);
      const page = JSON.parse(out.text()) as { entries: { id: string; action: string }[]; next_before: string | null };
      expect(page.entries).toHaveLength(1);
      expect(page.next_before).toBe(page.entries[0]!.id);
      out.clear();
      expect(await runAudit({ structure: 'Acme', limit: 1, before: page.next_before! }, as(alice))).toBe(0);
      expect(out.text()).not.toContain(page.entries[0]!.id);
      expect(out.errText()).toMatch(/more: add --before [0-9a-f-]{36}/);
      out.clear();
      expect(await runAudit({ structure: 'Acme', action: 'webhook.', actor: 'nobody@example.com' }, as(alice))).toBe(0);
      expect(out.text()).toBe('no audit entries for Acme match these filters');
      out.clear();
      await expect(runAudit({ all: true }, as(alice))).rejects.toThrow(/administrator/);
      expect(await runAudit({ all: true, action: 'user.create' }, as(ADMIN_TOKEN))).toBe(0);
      expect(out.text()).toMatch(/user\.create\s+administrator\s+user /);
      out.clear();
    });

    it('share → invite e-mail → invites accept (no bearer) prints the new token once', async () => {
      expect(await runShare({ email: 'bob@example.com', role: 'operator' }, as(alice))).toBe(0);
      expect(out.text()).toContain('invited bob@example.com to Acme as operator');
      out.clear();
      expect(await runMembers({ json: true }, as(alice))).toBe(0);
      expect((JSON.parse(out.text()) as { invites: { email: string }[] }).invites.map((i) => i.email)).toEqual(['bob@example.com']);
      out.clear();
      const token = await inviteTokenFor(t.home, 'bob@example.com');
      const noToken = { ...as(alice), env: { ORG_URL: t.url, ORG_CONFIG_DIR: join(t.home, 'bob-config') } };
      expect(await runInvitesAccept({ inviteToken: token, save: true }, noToken)).toBe(0);
      expect(out.text()).toContain('bob@example.com is now operator');
      out.clear();
      expect(await runWhoami({}, noToken)).toBe(0);
      expect(out.text()).toMatch(/Acme\s+operator/);
      out.clear();
      await expect(runInvitesAccept({ inviteToken: token }, noToken)).rejects.toMatchObject({ code: 'gone' });
      await expect(runShare({ email: 'x@example.com', role: 'boss' }, as(alice))).rejects.toMatchObject({ code: 'invalid_request' });
    });
  });

  describe('skills', () => {
    it('new (through the API, with $EDITOR), list, show, search, edit, rm, restore, history', async () => {
      const editor = (change: (text: string) => string) => async (file: string) => writeFile(file, change(await readFile(file, 'utf8')));
      const write = (text: string) =>
        text
          .replace('status: draft', 'status: complete')
          .replace("summary: ''", 'summary: Plan the quarterly offsite')
          .replace('tags: []', 'tags: [offsite, planning]');
      expect(await runSkillsNew({ slug: 'plan-offsite', remote: true }, as(alice, { openEditor: editor(write) }))).toBe(0);
      expect(out.text()).toContain('created plan-offsite');
      out.clear();
      // A skill saved under the slug while the editor is open is never replaced: the new text stays in its file.
      let kept = '';
      const racing = async (file: string) => {
        kept = file;
        await new OrgClient({ url: t.url, token: alice }).saveSkill({ structure_id: structureId, slug: 'race-offsite', frontmatter: { type: 'skill', name: 'Theirs', status: 'draft' }, body: '## [a] Step 1: A\n' });
        await writeFile(file, write(await readFile(file, 'utf8')));
      };
      await expect(runSkillsNew({ slug: 'race-offsite', remote: true }, as(alice, { openEditor: racing }))).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('nothing was saved') });
      expect((await new OrgClient({ url: t.url, token: alice }).getSkill('race-offsite')).frontmatter.name).toBe('Theirs');
      expect(await readFile(kept, 'utf8')).toContain('Plan the quarterly offsite');

      expect(await runSkillsList({ json: true }, as(alice))).toBe(0);
      expect((JSON.parse(out.text()) as { slug: string; status: string }[]).find((s) => s.slug === 'plan-offsite')).toMatchObject({ status: 'complete' });
      out.clear();
      expect(await runSkillsList({ status: 'complete' }, as(alice))).toBe(0);
      expect(out.out[0]).toMatch(/^SLUG\s+STATUS\s+CATEGORY\s+NAME$/);
      expect(out.text()).toMatch(/plan-offsite\s+complete\s+operations\s+Plan offsite/);
      out.clear();

      expect(await runSkillsShow({ slug: 'plan-offsite', width: 80 }, as(alice))).toBe(0);
      expect(out.out[0]).toBe('Plan offsite  (plan-offsite)');
      expect(out.text()).toContain('status complete · operations · difficulty medium · tags offsite, planning');
      expect(out.text()).toContain('Gather the inputs');
      out.clear();

      expect(await runSkillsSearch({ query: 'quarterly offsite planning' }, as(alice))).toBe(0);
      expect(out.out[0]).toMatch(/^1\. plan-offsite {2}score \d+\.\d{2}$/);
      expect(out.out[1]?.trim()).toMatch(/offsite/);
      out.clear();

      expect(await runSkillsEdit({ slug: 'plan-offsite', remote: true }, as(alice, { openEditor: editor((text) => text.replace('Gather the inputs', 'Collect the inputs')) }))).toBe(0);
      expect(out.text()).toMatch(/^saved plan-offsite \(complete, 2 step\(s\)\)$/);
      out.clear();
      expect(await runSkillsEdit({ slug: 'plan-offsite', remote: true }, as(alice, { openEditor: async () => undefined }))).toBe(0);
      expect(out.text()).toBe('no changes to plan-offsite');
      out.clear();
      await expect(
        runSkillsEdit({ slug: 'plan-offsite', remote: true }, as(alice, { openEditor: editor((text) => text.replace('status: complete', 'status: finished')) })),
      ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('status must be one of draft, complete, deprecated') });
      const client = new OrgClient({ url: t.url, token: alice });
      expect((await client.getSkill('plan-offsite')).body).toContain('Collect the inputs');

      expect(await runSkillsRm({ slug: 'plan-offsite' }, as(alice))).toBe(0);
      expect(out.text()).toContain('deleted plan-offsite');
      out.clear();
      await expect(client.getSkill('plan-offsite')).rejects.toMatchObject({ code: 'not_found' });
      expect(await runSkillsDeleted({}, as(alice))).toBe(0);
      // Deleted once; the versions the edits replaced are no deleted skills.
      expect(out.out.filter((line) => line.startsWith('plan-offsite'))).toHaveLength(1);
      out.clear();
      expect(await runSkillsDeleted({ replaced: true }, as(alice))).toBe(0);
      expect(out.out.filter((line) => line.startsWith('plan-offsite') && line.includes('replaced by an update')).length).toBeGreaterThan(0);
      expect(out.out.filter((line) => /^plan-offsite\s.*\sdeleted\s/.test(line))).toHaveLength(1);
      out.clear();
      expect(await runSkillsRestore({ slug: 'plan-offsite' }, as(alice))).toBe(0);
      expect(out.text()).toBe('restored plan-offsite (complete)');
      out.clear();
      expect(await runSkillsHistory({ slug: 'plan-offsite' }, as(alice))).toBe(0);
      expect(out.text()).toContain('no commits for plan-offsite');
      out.clear();
    });

    it('new and edit work on the local file when the home has skills/', async () => {
      expect(await runSkillsNew({ slug: 'local-skill', home: t.home, edit: false }, as(alice))).toBe(0);
      const file = join(t.home, 'skills', 'local-skill.md');
      const text = await readFile(file, 'utf8');
      expect(text).toMatch(/^---\ntype: skill\nname: Local skill\n/);
      expect(text).toContain('## [gather-inputs] Step 1: Gather the inputs');
      expect(out.text()).toBe('created skills/local-skill.md (a draft until its status is complete)');
      out.clear();
      await expect(runSkillsNew({ slug: 'local-skill', home: t.home, edit: false }, as(alice))).rejects.toMatchObject({ code: 'conflict' });
      const opened: string[] = [];
      const code = await runSkillsEdit(
        { slug: 'local-skill', home: t.home },
        as(alice, {
          openEditor: async (path: string) => {
            opened.push(path);
            await writeFile(path, (await readFile(path, 'utf8')).replace('[do-the-work] Step 2: Do the work', '[gather-inputs] Step 2: Do the work'));
          },
        }),
      );
      expect(opened).toEqual([file]);
      expect(code).toBe(1); // the edit repeated a step id: reported, non-zero
      expect(out.errText()).toMatch(/^skills\/local-skill\.md:\d+: error: duplicate step id "gather-inputs" \(first used at line \d+\)$/m);
      out.clear();
    });
  });

  describe('drafts', () => {
    it('lists drafts, and the queue actions approve, reject and restore through the API', async () => {
      const client = new OrgClient({ url: t.url, token: alice });
      for (const slug of ['draft-one', 'draft-two']) {
        await client.saveSkill({ structure_id: structureId, slug, frontmatter: { type: 'skill', name: slug, status: 'draft', structure_id: structureId }, body: '## [a] Step 1: A\n' });
      }
      expect(await runDrafts({ json: true }, as(alice))).toBe(0);
      expect((JSON.parse(out.text()) as { slug: string }[]).map((d) => d.slug)).toEqual(expect.arrayContaining(['draft-one', 'draft-two']));
      out.clear();
      expect(await runDrafts({}, as(alice))).toBe(0); // no terminal: a table
      expect(out.out[0]).toMatch(/^SLUG\s+LEARNED\s+BY\s+NAME$/);
      out.clear();

      const actions = draftActions(client, structureId, { openEditor: async () => undefined });
      expect((await actions.load()).map((d) => d.slug)).toEqual(expect.arrayContaining(['draft-one', 'draft-two']));
      await actions.approve('draft-one');
      expect((await client.getSkill('draft-one')).frontmatter.status).toBe('complete');
      await actions.reject('draft-two');
      await expect(client.getSkill('draft-two')).rejects.toMatchObject({ code: 'not_found' });
      await actions.restore('draft-two');
      expect((await client.getSkill('draft-two')).frontmatter.status).toBe('draft');
      expect(await actions.edit('draft-two')).toBeUndefined(); // unchanged
    });
  });

  describe('chat -m', () => {
    it('streams the reply text to stdout, progress to stderr, and exits 0', async () => {
      expect(await runChat({ structure: 'Acme', role: 'exec-ceo', message: 'close March' }, as(alice))).toBe(0);
      // stdout is the whole readable reply: step headings, text, decisions, what was
      // learned (the server's outcome: the draft's stored slug), summary, artifacts.
      expect(out.out).toEqual([
        '▸ Ledger reconciled',
        'Hello world.',
        '◆ Decision: Accrue the invoice — Accrue it in March because the service was delivered then.',
        '✎ learned a draft skill: close-the-books (Close the books)',
        '  review it: org drafts approve close-the-books   or the queue: org drafts',
        '✔ Closed March',
        'artifacts: report.md, ledger.csv',
      ]);
      // stderr carries the progress around it.
      expect(out.err).toEqual(expect.arrayContaining(['· Thinking about the quarter']));
      expect(out.errText()).toContain('→ search_skills {"query":"close the books"}');
      expect(out.errText()).toContain('← search_skills {"matches":[{"slug":"run-month-end-close"}]}');
      expect(out.errText()).not.toContain('✎');
      out.clear();
    });

    it('--json prints one event per line; an error event exits non-zero', async () => {
      expect(await runChat({ structure: structureId, role: 'Chief Financial Officer', message: 'close March', json: true }, as(alice))).toBe(0);
      const events = out.out.map((line) => JSON.parse(line) as { type: string; timestamp: string });
      expect(events[0]?.type).toBe('thought');
      expect(events.at(-1)?.type).toBe('complete');
      expect(events.every((event) => typeof event.timestamp === 'string')).toBe(true);
      out.clear();
      expect(await runChat({ structure: 'Acme', role: 'exec-coo', message: 'fail now' }, as(alice))).toBe(1);
      expect(out.out).toEqual(['trying']);
      expect(out.err).toContain('✖ error: boom');
      out.clear();
      await expect(runChat({ message: 'no target' }, as(alice))).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(runChat({}, as(alice))).rejects.toMatchObject({ message: expect.stringContaining('needs a terminal') });
    });

    it('--attach sends files with the message', async () => {
      await writeFile(join(t.home, 'notes.csv'), 'a,b\n1,2\n');
      expect(await runChat({ structure: 'Acme', role: 'exec-cmo', message: 'see attached', attach: ['notes.csv'] }, as(alice))).toBe(0);
      out.clear();
      const history = await new OrgClient({ url: t.url, token: alice }).history(structureId, 'exec-cmo', { limit: 2 });
      expect(history.find((m) => m.sender === 'user')?.attachments).toEqual([expect.objectContaining({ name: 'notes.csv', content_type: 'text/csv', size: 8 })]);
      await expect(runChat({ structure: 'Acme', role: 'exec-cmo', message: 'x', attach: ['missing.txt'] }, as(alice))).rejects.toMatchObject({ message: 'no such file: missing.txt' });
    });
  });
});

describe('org init', () => {
  it('scaffolds skills/ with the template, .gitignore for .org/, and a git repository', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'org-init-'));
    const out = capture();
    const deps = { output: out.output, cwd: dir, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' }, interactive: false };
    expect(await runInit({ dir: 'acme' }, deps)).toBe(0);
    const home = join(dir, 'acme');
    expect(await readFile(join(home, 'skills', '.template.md'), 'utf8')).toContain('## [gather-inputs] Step 1');
    // A new home starts with a copy of the bundled library.
    const bundled = (await listShippedSkills(REPO_ROOT)).map((skill) => skill.name);
    expect((await readdir(join(home, 'skills'))).filter((name) => name.endsWith('.md') && !name.startsWith('.')).sort()).toEqual(bundled);
    expect(out.text()).toContain(`created  skills/ with ${bundled.length} bundled skills`);
    expect(await readFile(join(home, '.gitignore'), 'utf8')).toMatch(/^\.org\/$/m);
    let git = true;
    try {
      execFileSync('git', ['--version']);
    } catch {
      git = false;
    }
    if (git) expect((await stat(join(home, '.git'))).isDirectory()).toBe(true);
    out.clear();
    expect(await runInit({ dir: 'acme' }, deps)).toBe(0);
    expect(out.out.slice(0, 4)).toEqual([
      `kept     skills/ (${bundled.length} skill file(s) already there)`,
      'kept     skills/.template.md',
      'kept     .gitignore',
      git ? 'kept     the git repository' : 'skipped  git init (git is not installed)',
    ]);
    // --no-bundled: an empty library.
    expect(await runInit({ dir: 'empty', bundled: false, git: false }, deps)).toBe(0);
    expect((await readdir(join(dir, 'empty', 'skills'))).filter((name) => !name.startsWith('.'))).toEqual([]);
  });

  it('inside the org package: a named folder there is refused, no folder means ~/.org', async () => {
    const out = capture();
    const user = await mkdtemp(join(tmpdir(), 'org-user-'));
    const deps = { output: out.output, cwd: REPO_ROOT, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' }, interactive: false };
    await expect(runInit({ dir: 'skills', git: false }, deps)).rejects.toThrow(/is inside the org package .*name a folder of your own, e\.g\. org init ~\/org/);
    const home = process.env.HOME;
    process.env.HOME = user;
    try {
      expect(await runInit({ git: false }, deps)).toBe(0);
    } finally {
      process.env.HOME = home;
    }
    expect((await readdir(join(user, '.org', 'skills'))).filter((name) => name.endsWith('.md') && !name.startsWith('.')).length).toBe((await listShippedSkills(REPO_ROOT)).length);
    expect(out.out.at(-1)).toBe(`next: cd ${join(user, '.org')} && org serve     then: org skills new my-first-skill`);
  });
});
