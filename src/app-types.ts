/**
 * What an org instance is made of, as its composition root (`createApp` in `app.ts`)
 * returns it: the services of a running instance, the collaborators tests may replace,
 * what a first start created and the checks of readiness.
 */
import type { AuditLog } from './core/audit/index.js';
import type { AccessControl, ConnectionRegistry, KeyService, RateCounter, UserService } from './core/auth/index.js';
import type { HomePaths, OrgConfig } from './core/config.js';
import type { ChatEngine, StreamDrain } from './core/chat/index.js';
import type { EgressGate, EgressLookup } from './core/egress/index.js';
import type { InboundService } from './core/inbound/index.js';
import type { Mailer } from './core/mail/index.js';
import type { AgentRuntime } from './core/runtimes/index.js';
import type { SearchListener, SkillStore, SkillStoreOptions } from './core/skills/index.js';
import type { InviteService, MemberService, NodeActivity, NodeService, StructureService, Template, WorkspaceLog } from './core/structures/index.js';
import type { Clock, Log } from './core/util/index.js';
import type { WebhookService } from './core/webhooks/index.js';

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
  /** Opens the skill library without waiting for its load (default {@link openSkillStore}; tests hold the load to see the loading state). */
  openSkills?: (options: SkillStoreOptions, startAfter?: Promise<unknown>) => SkillStore;
  /**
   * true: the skill library starts loading only at {@link App.startSkillLoad}. `org serve`
   * calls it once it listens, so that reading a large library (every file stat'ed, the
   * index snapshot restored, the watcher set up) does not share the one thread with the
   * start-up and delay the listen. Default false: loading starts at once.
   */
  deferSkillLoad?: boolean;
  /** Delays before each webhook retry in ms (default: about 24 h of backoff); tests shorten it. */
  webhookRetrySchedule?: readonly number[];
  /** Resolves host names for the egress gate (default: the system resolver); tests give names of their own. */
  egressLookup?: EgressLookup;
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
  /** Who changed what, when and from where (append-only). */
  audit: AuditLog;
  activity: NodeActivity;
  connections: ConnectionRegistry;
  access: AccessControl;
  mailer: Mailer;
  skills: SkillStore;
  chat: ChatEngine;
  /** The open event streams and the drain of a shutdown (see {@link App.drain}). */
  streams: StreamDrain;
  /**
   * Begins the drain of a shutdown: readiness fails, new turns are refused (503 with
   * Retry-After), streams of runs executing on other instances end with a final `retry:`
   * (their clients resume elsewhere), and this instance's running turns go on.
   */
  drain(): void;
  /** Inbound e-mail and messaging-channel messages (API.md §7). */
  inbound: InboundService;
  /** Completion webhooks of structures and their outbox. */
  webhooks: WebhookService;
  /** The egress gate every outbound call for a user goes through (`--allow-egress`). */
  egress: EgressGate;
  /** Hears every skill search (API and chat lookups) once done; returns the remover. */
  observeSearches(listener: SearchListener): () => void;
  /** The one log every service of this instance reports to (never throws). */
  log: Log;
  /** Number of skills in the library (for health). */
  skillCount(): number;
  /** Starts loading the skill library when `deferSkillLoad` held it; does nothing otherwise or when called again. */
  startSkillLoad(): void;
  /**
   * Whether this instance can take traffic (`GET /api/org/health/ready`): the skill index
   * is loaded, the structure store answers and the state folder is writable, and it is
   * not draining (shutting down).
   */
  readiness(): Promise<Readiness>;
  /** Sets the URL the server listens on, used in e-mail links when ORG_PUBLIC_URL is absent. */
  setListeningUrl(url: string): void;
  /** The base URL for links. */
  publicUrl(): string;
  /** On an instance with no user and no admin token: creates owner@localhost (and the demo). */
  firstStart(): Promise<FirstStart | undefined>;
  /**
   * Brings in what other instances sharing the store changed (structures); the server
   * calls it before each request. Undefined (nothing to wait for) on a filesystem home.
   */
  sync(): Promise<void> | undefined;
  /** This instance's id among those sharing a PostgreSQL store (undefined on a filesystem home). */
  instanceId?: string;
  /** Requests counted across the instances sharing a store (undefined on a filesystem home: the server counts in memory). */
  rateCounter?: RateCounter;
  /** Flushes state and releases resources. */
  close(): Promise<void>;
}

/** The checks of readiness, each true when it passes. */
export interface Readiness {
  ready: boolean;
  checks: { skills_index: boolean; store: boolean; draining: boolean };
}
