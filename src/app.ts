/**
 * The composition root: `createApp(config)` builds and wires the core services of one
 * org instance. The HTTP server, the MCP server and the CLI all work through an `App`.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccessControl, ConnectionRegistry, KeyService, UserService } from './core/auth/index.js';
import { homePaths, type HomePaths, type OrgConfig } from './core/config.js';
import { createOutboxMailer, createSmtpMailer, type Mailer } from './core/mail/index.js';
import { pendingWrites } from './core/storage/index.js';
import { type Clock, systemClock } from './core/util/index.js';
import { InviteService, NodeActivity, WorkspaceService, loadTemplates, type Template } from './core/workspaces/index.js';

/** The package root (holds `templates/`, `skills/`, `package.json`), from `src/` or `dist/`. */
export const PACKAGE_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

/** Collaborators that tests may replace. */
export interface AppDeps {
  clock?: Clock;
  mailer?: Mailer;
  /** Folder of structure templates (default: the package's `templates/`). */
  templatesDir?: string;
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
  workspaces: WorkspaceService;
  activity: NodeActivity;
  connections: ConnectionRegistry;
  access: AccessControl;
  mailer: Mailer;
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
  await mkdir(paths.skills, { recursive: true });
  await mkdir(paths.structures, { recursive: true });
  await mkdir(paths.outbox, { recursive: true });
  const clock = deps.clock ?? systemClock;
  const templates = await loadTemplates(deps.templatesDir ?? join(PACKAGE_ROOT, 'templates'));
  const connections = new ConnectionRegistry();
  const activity = new NodeActivity();
  const users = new UserService({ file: paths.users, clock });
  const keys = new KeyService({ file: paths.keys, connections, clock });
  const workspaces = new WorkspaceService({
    dir: paths.structures,
    templates,
    activity,
    clock,
    onArchived: (structureId, node) => keys.revokeNode(structureId, node.id),
  });
  const mailer =
    deps.mailer ??
    (config.smtpUrl
      ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom })
      : createOutboxMailer({ dir: paths.outbox, from: config.mailFrom, clock }));
  let listeningUrl = `http://${config.host}:${config.port}`;
  const publicUrl = () => config.publicUrl ?? listeningUrl;
  const invites = new InviteService({ file: paths.invites, users, workspaces, mailer, publicUrl, clock });
  await Promise.all([users.load(), keys.load(), invites.load(), workspaces.load()]);
  const access = new AccessControl({ users, keys, workspaces, ...(config.adminToken ? { adminToken: config.adminToken } : {}) });

  return {
    config,
    paths,
    clock,
    templates,
    users,
    keys,
    invites,
    workspaces,
    activity,
    connections,
    access,
    mailer,
    skillCount: () => 0,
    setListeningUrl(url) {
      listeningUrl = url;
    },
    publicUrl,
    async firstStart() {
      if (users.count() > 0 || config.adminToken) return undefined;
      const { user, token } = await users.create('owner@localhost');
      const result: FirstStart = { email: user.email, token };
      if (config.demo) {
        const demo = await workspaces.create({ name: 'Demo', template: 'exec-team', ownerId: user.id });
        result.demoStructureId = demo.id;
      }
      return result;
    },
    async close() {
      await keys.close();
      await mailer.close();
      await pendingWrites();
    },
  };
}
