/**
 * The composition root: `createApp(config)` builds and wires the core services of one
 * org instance. The HTTP server, the MCP server and the CLI all work through an `App`.
 */
import { constants as fsConstants } from 'node:fs';
import { access as fsAccess } from 'node:fs/promises';
import { join } from 'node:path';
import type { App, AppDeps, FirstStart } from './app-types.js';
import { AuditLog, createFsAuditStore } from './core/audit/index.js';
import { AccessControl, ConnectionRegistry, KeyService, RunTokens, UserService, delegationAuthority, roleAtLeast, runCredentials } from './core/auth/index.js';
import { homePaths, type OrgConfig } from './core/config.js';
import { ChatEngine, StreamDrain, createChatSkills, createFsChatStore, type ChatDirectory } from './core/chat/index.js';
import { createContainerRuntime, createLocalRuntime, createLlmRuntime, type AgentRuntime } from './core/runtimes/index.js';
import { createSkillRemote, observeSkillSearches, openSkillStore, syncSkills } from './core/skills/index.js';
import { WebhookService, createFsWebhookStore, webhookRunObserver } from './core/webhooks/index.js';
import { EgressGate, EgressPolicy } from './core/egress/index.js';
import { prepareHome } from './core/home.js';
import { packageRoot } from './core/util/package-root.js';
import { createOutboxMailer, createSmtpMailer, readEmail } from './email/index.js';
import { InboundService } from './core/inbound/index.js';
import { pendingWrites } from './core/storage/index.js';
import { isOrgError } from './core/errors.js';
import type { PgBackend } from './stores/postgres/backend.js';
import { createLineLog, errorFields, guardLog, systemClock } from './core/util/index.js';
import {
  InviteService,
  MemberService,
  NodeActivity,
  NodeService,
  StructureRegistry,
  StructureService,
  WorkspaceLog,
  createFsStructureStore,
  loadTemplates,
} from './core/structures/index.js';

export type { App, AppDeps, FirstStart, Readiness } from './app-types.js';

/** The package root (holds `templates/`, `skills/`, `package.json`), from `src/`, `dist/` or the bundled CLI. */
export const PACKAGE_ROOT = packageRoot(import.meta.url);

/** An id no structure has: loading it exercises the store without finding anything. */
const PROBE_ID = '00000000-0000-4000-8000-000000000000';

/** How long the store check of readiness waits for an answer (a database behind a dropped route never answers). */
const STORE_PROBE_MS = 5000;

/** Settles with `work`, or rejects once `ms` have passed without an answer. */
function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** Builds an instance: creates the home layout, loads state, wires services. */
export async function createApp(config: OrgConfig, deps: AppDeps = {}): Promise<App> {
  const paths = homePaths(config.home);
  const log = guardLog(deps.log ?? createLineLog((line) => process.stderr.write(line), 'warn'));
  // Before anything reads or watches the home: links refused, crash leftovers removed.
  await prepareHome(paths, log);
  const clock = deps.clock ?? systemClock;
  const templates = await loadTemplates(deps.templatesDir ?? join(PACKAGE_ROOT, 'templates'));
  const connections = new ConnectionRegistry();
  const activity = new NodeActivity();
  // Set once the chat engine exists: the backend's heartbeat takes over dead instances' runs.
  let takeOver: () => void = () => undefined;
  // The PostgreSQL layer (and the pg driver) is loaded only for an instance that uses it.
  const shared: PgBackend | undefined = config.storeUrl
    ? await (await import('./stores/postgres/backend.js')).openPgBackend({
        url: config.storeUrl,
        leaseMs: config.leaseMs,
        cacheDir: join(paths.cache, 'artifacts'),
        clock,
        info: { home: config.home, pid: process.pid },
        onBeat: () => takeOver(),
        onError: (error) => log('error', 'PostgreSQL store: connection or heartbeat failed (retrying)', errorFields(error)),
      })
    : undefined;
  const users = new UserService(shared ? { store: shared.users, clock, connections } : { file: paths.users, clock, connections });
  const keys = new KeyService({ ...(shared ? { store: shared.keys } : { file: paths.keys }), connections, clock, log });
  const structureStore = shared?.structures ?? createFsStructureStore({ dir: paths.structures });
  const registry = new StructureRegistry(structureStore, clock);
  // A change of a structure (members, nodes, the structure itself, here or on another instance)
  // may take away a right an open stream relies on: those streams end at once.
  registry.onChanged((structureId) => connections.recheck(structureId));
  const structures = new StructureService({ registry, templates, activity, clock });
  const nodes = new NodeService({
    registry,
    store: structureStore,
    activity,
    dir: paths.structures,
    clock,
    onArchived: (structureId, node) => keys.revokeNode(structureId, node.id),
  });
  const members = new MemberService(registry, clock);
  const workspaceLog = new WorkspaceLog({ registry, ...(shared ? { store: shared.workspaceLog } : { dir: paths.structures }), clock });
  const audit = new AuditLog({ store: shared?.audit ?? createFsAuditStore(paths.state), clock });
  const mailer =
    deps.mailer ??
    (config.smtpUrl
      ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom, log })
      : createOutboxMailer({ dir: paths.outbox, from: config.mailFrom, clock, log }));
  let listeningUrl = `http://${config.host}:${config.port}`;
  const publicUrl = () => config.publicUrl ?? listeningUrl;
  const invites = new InviteService({ ...(shared ? { store: shared.invites } : { file: paths.invites }), users, structures, members, mailer, publicUrl, clock });
  await Promise.all([users.load(), keys.load(), invites.load(), registry.load()]);
  if (shared) {
    // Wake-ups from other instances: a revoked key stops here too (its streams and MCP
    // sessions close), a replaced token is forgotten (and its streams here close), a
    // changed structure is brought in.
    shared.listener.on('key', (keyId) => keys.revoked(keyId));
    shared.listener.on('user', (userId) => {
      users.changedElsewhere(userId).catch((error: unknown) => log('error', 'applying a user changed elsewhere failed', errorFields(error)));
    });
    shared.listener.on('structure', () => {
      registry.sync()?.catch((error: unknown) => log('error', 'bringing in a structure changed elsewhere failed', errorFields(error)));
    });
    shared.listener.onResync(() => {
      keys.forgetAll();
      users.resync().catch((error: unknown) => log('error', 'bringing in users changed elsewhere failed', errorFields(error)));
    });
  }
  // Opened, not awaited: the server listens while a large library loads (see openSkillStore).
  const skillsRemote = config.skillsRemote
    ? createSkillRemote({
        root: paths.skills,
        url: config.skillsRemote,
        clock: () => clock.now(),
        // The other instances sharing the store are told to pull (a wake-up, delivered on commit).
        onPublished: (commit) => {
          if (shared) {
            void import('./stores/postgres/notify.js')
              .then(({ wake }) => wake(shared.db.pool, 'skills', commit))
              .catch((error: unknown) => log('warn', 'announcing a skills commit failed', errorFields(error)));
          }
        },
      })
    : undefined;
  // The gate of a deferred load: opened by startSkillLoad, or failed by close when the
  // load never started (so that closing the store does not wait for it).
  let openGate = (): void => undefined;
  let failGate = (_reason: Error): void => undefined;
  const gate = deps.deferSkillLoad
    ? new Promise<void>((resolve, reject) => {
        openGate = resolve;
        failGate = reject;
      })
    : undefined;
  const searches = observeSkillSearches(
    (deps.openSkills ?? openSkillStore)({
      root: paths.skills,
      stateDir: paths.state,
      clock: () => clock.now(),
      watch: config.watchSkills,
      // This process holds the home: temps in skills/ are leftovers of a killed one.
      sweepTemps: true,
      commit: config.commit,
      ...(skillsRemote ? { remote: skillsRemote } : {}),
      log,
    }, gate),
    (error) => log('error', 'search: an observer failed', errorFields(error)),
  );
  const skills = searches.store;
  const stopSkillsSync = skillsRemote ? syncSkills(skills, { fetchMs: config.skillsFetchMs, listener: shared?.listener, log }) : () => undefined;
  // Containers, tool URLs and webhooks go through the gate; the LLM (the operator's own
  // configuration, ORG_LLM_URL) does not.
  const egress = new EgressGate({ policy: new EgressPolicy(config.egressAllow), ...(deps.egressLookup ? { lookup: deps.egressLookup } : {}) });
  const dispatcher = () => egress.dispatcher();
  const local = createLocalRuntime({ dispatcher });
  const llm = config.llm ? createLlmRuntime(config.llm) : undefined;
  const container = (url: string): AgentRuntime => ({
    name: 'container',
    run: async (turn, emit, tools, signal) => createContainerRuntime(url, { dispatcher: await egress.dispatcher(), log }).run(turn, emit, tools, signal),
  });
  const directory: ChatDirectory = {
    node: (structureId, roleId) => nodes.record(structureId, roleId),
    structure: (structureId) => structures.record(structureId),
    nodeDir: (structureId, nodeId) => nodes.dir(structureId, nodeId),
    appendLog: async (structureId, entries) => {
      await workspaceLog.append(structureId, entries);
    },
  };
  const runTokens = new RunTokens({ ...(shared ? { store: shared.runTokens } : {}), clock });
  const chat = new ChatEngine({
    directory,
    activity,
    skills: createChatSkills(skills),
    store: shared?.chat ?? createFsChatStore({ stateDir: paths.state, nodeDir: (structureId, nodeId) => nodes.dir(structureId, nodeId) }),
    ...(shared ? { openShelf: shared.shelves } : {}),
    clock,
    log,
    router: (node) => deps.runtime?.(node) ?? (node.container_url ? container(node.container_url) : (llm ?? local)),
    maxQueuedTurns: config.maxQueuedTurns,
    artifactQuota: config.artifactQuotaBytes,
    delegationDepth: config.delegationDepth,
    authority: delegationAuthority(members, users),
    credentials: runCredentials(runTokens, publicUrl),
  });
  const retrySchedule = deps.webhookRetrySchedule ?? config.webhookRetrySchedule;
  const webhooks = new WebhookService({
    store: shared?.webhooks ?? (await createFsWebhookStore(paths.state)),
    clock,
    log,
    dispatcher,
    ...(retrySchedule ? { retrySchedule } : {}),
  });
  webhooks.start();
  chat.observe(
    webhookRunObserver((event) => {
      webhooks.emit(event).catch((error: unknown) => log('error', 'webhook: event not queued', errorFields(error)));
    }),
  );
  await chat.recover();
  const inbound = new InboundService({
    chat,
    structures,
    mailer,
    readEmail,
    domain: config.inboundDomain,
    log,
    journal: shared?.replies ?? join(paths.state, 'inbound-replies.jsonl'),
    ...(config.inboundAuthservId ? { authservId: config.inboundAuthservId } : {}),
    // Mail starts work only from the structure's operators and owners (API.md §3: chat).
    mayChat: async (structureId, email) => {
      const user = await users.byEmail(email);
      const role = user && members.roleOf(structureId, user.id);
      return role !== undefined && roleAtLeast(role, 'operator');
    },
    ...(shared ? { replays: shared.inboundIds } : {}),
  });
  await inbound.recover();
  takeOver = () => {
    // Retries queued by other instances, and deliveries a dead one had claimed.
    webhooks.poke();
    chat
      .recover()
      .then(() => inbound.recover())
      .catch((error: unknown) => log('error', "taking over a stopped instance's runs failed", errorFields(error)));
  };
  const streams = new StreamDrain();
  const access = new AccessControl({ users, keys, structures, members, runTokens, ...(config.adminToken ? { adminToken: config.adminToken } : {}) });

  return {
    config,
    paths,
    clock,
    templates,
    users,
    keys,
    invites,
    structures,
    nodes,
    members,
    workspaceLog,
    audit,
    activity,
    connections,
    access,
    mailer,
    skills,
    chat,
    streams,
    drain() {
      if (streams.draining) return;
      streams.begin();
      chat.refuse();
      shared?.lease.drain().catch((error: unknown) => log('warn', 'marking this instance draining in the store failed', errorFields(error)));
    },
    inbound,
    webhooks,
    egress,
    observeSearches: (listener) => searches.observe(listener),
    log,
    skillCount: () => skills.count(),
    startSkillLoad: () => openGate(),
    async readiness() {
      // The structure store is the one of the backend (a folder or PostgreSQL); the state
      // folder holds the skill index and caches on either.
      const probe = Promise.all([structureStore.load(PROBE_ID), fsAccess(paths.state, fsConstants.R_OK | fsConstants.W_OK)]);
      const store = await withDeadline(probe, STORE_PROBE_MS, 'the store').then(
        () => true,
        (error: unknown) => {
          log('warn', 'readiness: the store is not reachable', errorFields(error));
          return false;
        },
      );
      const checks = { skills_index: skills.isReady(), store, draining: chat.draining || streams.draining };
      return { ready: checks.skills_index && checks.store && !checks.draining, checks };
    },
    setListeningUrl(url) {
      listeningUrl = url;
      // org never calls its own port for a user, whatever --allow-egress says.
      egress.policy.setSelf(Number(new URL(url).port) || undefined);
    },
    publicUrl,
    sync: () => registry.sync(),
    ...(shared ? { instanceId: shared.instanceId, rateCounter: shared.rateCounter } : {}),
    async firstStart() {
      if (config.adminToken || (await users.count()) > 0) return undefined;
      let created;
      try {
        // The first start's user administers the instance (its skills): the single-user set-up.
        created = await users.create('owner@localhost', { admin: true });
      } catch (error) {
        // Another instance sharing the store made the first start at the same moment.
        if (isOrgError(error) && error.code === 'conflict') return undefined;
        throw error;
      }
      const { user, token } = created;
      const result: FirstStart = { email: user.email, token };
      if (config.demo) {
        const demo = await structures.create({ name: 'Demo', template: 'exec-team', ownerId: user.id });
        result.demoStructureId = demo.id;
      }
      return result;
    },
    async close() {
      stopSkillsSync();
      await chat.close(config.shutdownGraceMs);
      await webhooks.close();
      await egress.close();
      await registry.idle();
      await structureStore.close();
      await inbound.idle();
      await audit.close();
      failGate(new Error('the instance closed before its skill library was loaded'));
      await skills.close();
      await keys.close();
      await mailer.close();
      await pendingWrites();
      await shared?.close();
    },
  };
}
