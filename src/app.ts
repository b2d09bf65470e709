/**
 * The composition root: `createApp(config)` builds and wires the core services of one
 * org instance. The HTTP server, the MCP server and the CLI all work through an `App`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccessControl, ConnectionRegistry, KeyService, UserService } from './core/auth/index.js';
import { homePaths, type HomePaths, type OrgConfig } from './core/config.js';
import { ChatEngine, createChatSkills, createFsChatStore, type ChatDirectory } from './core/chat/index.js';
import { createContainerRuntime, createLocalRuntime, createLlmRuntime, type AgentRuntime } from './core/runtimes/index.js';
import { createSkillStore, type SkillStore } from './core/skills/index.js';
import { prepareHome } from './core/home.js';
import { createOutboxMailer, createSmtpMailer, type Mailer } from './core/mail/index.js';
import { InboundService } from './core/inbound/index.js';
import { pendingWrites } from './core/storage/index.js';
import { createLineLog, errorFields, guardLog, type Clock, type Log, systemClock } from './core/util/index.js';
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
  type Template,
} from './core/workspaces/index.js';

/** The package root (holds `templates/`, `skills/`, `package.json`), from `src/` or `dist/`. */
export const PACKAGE_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Collaborators that tests may replace. */
export interface AppDeps {
  clock?: Clock;
  mailer?: Mailer;
  /** Folder of structure templates (default: the package's `templates/`). */
  templatesDir?: string;
  /** Replaces the runtime chosen for every node (tests). */
  runtime?: (node: { container_url: string | null }) => AgentRuntime | undefined;
  /**
   * Where every service reports (default: `warn` and `error` records as lines on
   * stderr). `org serve` passes the server's logger, so nothing is dropped.
   */
  log?: Log;
}

/** What the first start of an instance created. */
export interface FirstStart {
  email: string;
  token: string;
  demoStructureId?: string;
}

/** A running instance's services. */
export interface App {
  config: OrgConfig;
  paths: HomePaths;
  clock: Clock;
  templates: Map<string, Template>;
  users: UserService;
  keys: KeyService;
  invites: InviteService;
  /** Structures: create, list, detail. */
  structures: StructureService;
  /** Nodes of structures: add, change, move, archive, restore. */
  nodes: NodeService;
  /** Members of structures and their roles. */
  members: MemberService;
  /** The workspace log of each structure (decisions and milestones). */
  workspaceLog: WorkspaceLog;
  activity: NodeActivity;
  connections: ConnectionRegistry;
  access: AccessControl;
  mailer: Mailer;
  skills: SkillStore;
  chat: ChatEngine;
  /** Inbound e-mail and messaging-channel messages (API.md §7). */
  inbound: InboundService;
  /** The one log every service of this instance reports to (never throws). */
  log: Log;
  /** Number of skills in the library (for health). */
  skillCount(): number;
  /** Sets the URL the server listens on, used in e-mail links when ORG_PUBLIC_URL is absent. */
  setListeningUrl(url: string): void;
  /** The base URL for links. */
  publicUrl(): string;
  /** On an instance with no user and no admin token: creates owner@localhost (and the demo). */
  firstStart(): Promise<FirstStart | undefined>;
  /** Flushes state and releases resources. */
  close(): Promise<void>;
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
  const users = new UserService({ file: paths.users, clock });
  const keys = new KeyService({ file: paths.keys, connections, clock, log });
  const structureStore = createFsStructureStore({ dir: paths.structures });
  const registry = new StructureRegistry(structureStore, clock);
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
  const workspaceLog = new WorkspaceLog({ registry, dir: paths.structures, clock });
  const mailer =
    deps.mailer ??
    (config.smtpUrl
      ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom, log })
      : createOutboxMailer({ dir: paths.outbox, from: config.mailFrom, clock, log }));
  let listeningUrl = `http://${config.host}:${config.port}`;
  const publicUrl = () => config.publicUrl ?? listeningUrl;
  const invites = new InviteService({ file: paths.invites, users, structures, members, mailer, publicUrl, clock });
  await Promise.all([users.load(), keys.load(), invites.load(), registry.load()]);
  const onError = (error: unknown): void => log('error', 'chat: unexpected failure', errorFields(error));
  const skills = await createSkillStore({
    root: paths.skills,
    stateDir: paths.state,
    clock: () => clock.now(),
    watch: config.watchSkills,
    commit: config.commit,
    log,
  });
  const local = createLocalRuntime();
  const llm = config.llm ? createLlmRuntime(config.llm) : undefined;
  const directory: ChatDirectory = {
    node: (structureId, roleId) => nodes.record(structureId, roleId),
    structure: (structureId) => structures.record(structureId),
    nodeDir: (structureId, nodeId) => nodes.dir(structureId, nodeId),
    appendLog: async (structureId, entries) => {
      await workspaceLog.append(structureId, entries);
    },
  };
  const chat = new ChatEngine({
    directory,
    activity,
    skills: createChatSkills(skills),
    store: createFsChatStore({ stateDir: paths.state, nodeDir: (structureId, nodeId) => nodes.dir(structureId, nodeId) }),
    clock,
    onError,
    router: (node) => deps.runtime?.(node) ?? (node.container_url ? createContainerRuntime(node.container_url) : (llm ?? local)),
  });
  await chat.recover();
  const inbound = new InboundService({
    chat,
    structures,
    mailer,
    domain: config.inboundDomain,
    log,
    journal: join(paths.state, 'inbound-replies.jsonl'),
  });
  await inbound.recover();
  // Start-up writes (the refreshed skill index) are done before the instance is ready:
  // none is left in flight, half-written, when the process reports that it listens.
  await skills.settle();
  const access = new AccessControl({ users, keys, structures, members, ...(config.adminToken ? { adminToken: config.adminToken } : {}) });

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
    activity,
    connections,
    access,
    mailer,
    skills,
    chat,
    inbound,
    log,
    skillCount: () => skills.count(),
    setListeningUrl(url) {
      listeningUrl = url;
    },
    publicUrl,
    async firstStart() {
      if (config.adminToken || (await users.count()) > 0) return undefined;
      const { user, token } = await users.create('owner@localhost');
      const result: FirstStart = { email: user.email, token };
      if (config.demo) {
        const demo = await structures.create({ name: 'Demo', template: 'exec-team', ownerId: user.id });
        result.demoStructureId = demo.id;
      }
      return result;
    },
    async close() {
      await chat.close(config.shutdownGraceMs);
      await registry.idle();
      await structureStore.close();
      await inbound.idle();
      await skills.close();
      await keys.close();
      await mailer.close();
      await pendingWrites();
    },
  };
}
