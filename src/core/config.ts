/**
 * The configuration of one org instance: flags, environment and defaults merged in
 * exactly one place (`resolveConfig`), validated at start-up, then passed by value.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { invalid } from './errors.js';
import { parseEgressAllow } from './egress/policy.js';
import { resolveConnectionLimits, type ConnectionFlags, type ConnectionLimits } from './config-connections.js';
import { locateHome, type HomeLocation } from './home-location.js';
import { parseTrustedProxies } from './trusted-proxies.js';
import { MIB, parseCorsOrigins, parsePort, parsePositive, parseAuthservId, parseCount, parseSeconds, parseRetrySchedule, parseUrl, parseDepth, remoteLocation } from './config-values.js';

export { parseCorsOrigins };

/** Everything an instance needs to run. Every field is documented in docs/configuration.md. */
export interface OrgConfig {
  /**
   * Folder holding `skills/` and `.org/` (`--home`, `ORG_HOME`; default: current directory,
   * or `~/.org` when that is inside the org package: see `home-location.ts`).
   */
  home: string;
  /** Where `home` came from (and, for the `~/.org` default, the package folder it avoided). */
  homeLocation?: HomeLocation;
  /** Interface to listen on (`--host`, `ORG_HOST`; default `127.0.0.1`). */
  host: string;
  /** TCP port; 0 takes any free port (`--port`, `ORG_PORT`; default 4780). */
  port: number;
  /** A bearer equal to this is the instance administrator (`ORG_ADMIN_TOKEN`). */
  adminToken?: string;
  /** Requests a minute allowed per token (`ORG_RATE_LIMIT`; default 1200). */
  rateLimit: number;
  /**
   * Failed authentications (no token, an unknown or revoked one) a minute allowed per client
   * address before it gets 429 (`ORG_AUTH_FAILURE_LIMIT`; default 60).
   */
  authFailureLimit: number;
  /** SMTP URL for outgoing mail (`ORG_SMTP_URL`); without it mail goes to `.org/outbox/`. */
  smtpUrl?: string;
  /** Sender address of outgoing mail (`ORG_MAIL_FROM`; default `org@localhost`). */
  mailFrom: string;
  /** Base URL used in links of outgoing mail (`ORG_PUBLIC_URL`; default: the listening URL). */
  publicUrl?: string;
  /** Create the "Demo" structure on first start (`--no-demo` turns it off). */
  demo: boolean;
  /** Where the CLI's credentials file lives (`ORG_CONFIG_DIR`; default `~/.config/org`). */
  configDir: string;
  /** Largest accepted request body in bytes (25 MiB, API.md §6). */
  bodyLimit: number;
  /**
   * How long a shutdown (SIGTERM) lets running turns end before closing them as interrupted, in
   * milliseconds (`--shutdown-grace` seconds, `ORG_SHUTDOWN_GRACE`; default 10, API.md §1).
   */
  shutdownGraceMs: number;
  /** How long the sync chat endpoint waits, in milliseconds (`--sync-timeout` seconds; default 120). */
  syncTimeoutMs: number;
  /**
   * An OpenAI-compatible chat-completions server for the LLM runtime (`ORG_LLM_URL`,
   * `ORG_LLM_MODEL`, `ORG_LLM_API_KEY`), and how many rounds of tool calls a turn may use
   * (`ORG_LLM_MAX_ROUNDS`, 1 to 1000; default: the runtime's, 32).
   */
  llm?: { url: string; model: string; apiKey: string; maxToolRounds?: number };
  /** Watch `skills/` for edits made outside the API (default true). */
  watchSkills: boolean;
  /** Interval of SSE keepalive comments in milliseconds (`--sse-keepalive` seconds, `ORG_SSE_KEEPALIVE`; default 15). */
  keepaliveMs: number;
  /** Lowest level written by the one log (`ORG_LOG_LEVEL`; default warn; `silent` writes nothing). */
  logLevel: (typeof LOG_LEVELS)[number];
  /** Commit API writes of skill files when `skills/` is in a git work tree (`--commit`). */
  commit: boolean;
  /** Key of the HMAC signature of inbound webhooks (`ORG_INBOUND_SECRET`); without it they answer 503. */
  inboundSecret?: string;
  /** Domain of inbound e-mail addresses `<role_id>.<structure_id>@<domain>` (`ORG_INBOUND_DOMAIN`; default `localhost`). */
  inboundDomain: string;
  /**
   * The `authserv-id` of the inbound relay's `Authentication-Results` header
   * (`ORG_INBOUND_AUTHSERV_ID`): set, inbound e-mail is accepted only with a DMARC, DKIM or
   * SPF pass for its From domain recorded there; unset, the relay must reject unauthenticated mail.
   */
  inboundAuthservId?: string;
  /** Port of the inbound SMTP listener (`--smtp-port`, `ORG_SMTP_PORT`; default: no listener). */
  smtpPort?: number;
  /**
   * Browser origins allowed to call the API across origins (`--cors-origin`, repeatable;
   * `ORG_CORS_ORIGINS`, comma separated; default none: no CORS headers, preflights 404).
   * `*` allows every origin (bearer tokens, never cookies, so no credentials are involved).
   */
  corsOrigins: string[];
  /**
   * Reverse proxies whose `X-Forwarded-For`, `-Proto` and `-Host` are believed
   * (`--trust-proxy`, repeatable; `ORG_TRUST_PROXY`, comma separated): addresses, CIDR
   * ranges or `loopback`/`linklocal`/`uniquelocal`. Default none: the client address is
   * the connection's.
   */
  trustProxy: string[];
  /**
   * What org may call for its users besides public addresses (`--allow-egress`,
   * repeatable; `ORG_EGRESS_ALLOW`, comma separated): `loopback`, `private`, addresses and
   * CIDR ranges (API.md §10 "Outbound addresses"). Default none: containers, tool URLs and
   * webhooks on loopback, private, link-local and other special addresses are refused.
   */
  egressAllow: string[];
  /** Open turns (running or waiting) a node may have; more get 429 (`--max-queued-turns`, `ORG_MAX_QUEUED_TURNS`; default 20). */
  maxQueuedTurns: number;
  /** Bytes the artifact shelves of one structure may hold (`--artifact-quota` MiB, `ORG_ARTIFACT_QUOTA`; default 512 MiB). */
  artifactQuotaBytes: number;
  /**
   * Where OTLP/HTTP traces go, from the standard variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
   * else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`); absent (or `OTEL_SDK_DISABLED=true`,
   * `OTEL_TRACES_EXPORTER=none`): no tracing, and nothing of OpenTelemetry is loaded.
   */
  otlpTracesUrl?: string;
  /** Serve Prometheus metrics at `GET /metrics` on the API port (`--metrics`, `ORG_METRICS=1`). */
  metrics: boolean;
  /** Serve `GET /metrics` on a separate port instead (`--metrics-port`, `ORG_METRICS_PORT`; implies metrics). */
  metricsPort?: number;
  /**
   * PostgreSQL URL holding all service state, shared by every instance that names it
   * (`--store`, `ORG_STORE_URL`); without it the state is in the home folder.
   */
  storeUrl?: string;
  /** With `storeUrl`: an instance silent for this long is dead and its runs are closed by another (`ORG_LEASE_MS`; default 15000). */
  leaseMs: number;
  /** How many hops below its root run a delegation chain may go (`ORG_DELEGATION_DEPTH`, 0 to 16; default 4; a root's child is hop 1). */
  delegationDepth: number;
  /**
   * The git remote the skill library is shared through (`--skills-remote`,
   * `ORG_SKILLS_REMOTE`): a URL git understands or the path of a bare repository
   * (made absolute). Without it the library is the home's own folder.
   */
  skillsRemote?: string;
  /** With `skillsRemote`: how often the remote is fetched for pushes made outside org (`ORG_SKILLS_FETCH_MS`; default 10000). */
  skillsFetchMs: number;
  /**
   * Delays before each retry of a failed webhook delivery, in ms (`ORG_WEBHOOK_RETRIES`:
   * seconds separated by commas); unset: about 24 h of backoff (see core/webhooks/schedule).
   */
  webhookRetrySchedule?: number[];
  /** Request timeouts and connection caps (see config-connections.ts). */
  connections: ConnectionLimits;
}

/** Command-line flags of `org serve`, as parsed by the CLI (all optional). */
export interface ServeFlags extends ConnectionFlags {
  home?: string;
  host?: string;
  port?: string | number;
  demo?: boolean;
  syncTimeout?: string | number;
  commit?: boolean;
  smtpPort?: string | number;
  store?: string;
  skillsRemote?: string;
  corsOrigin?: string[];
  trustProxy?: string[];
  allowEgress?: string[];
  maxQueuedTurns?: string | number;
  artifactQuota?: string | number;
  metrics?: boolean;
  metricsPort?: string | number;
  sseKeepalive?: string | number;
  shutdownGrace?: string | number;
}

/** Levels `ORG_LOG_LEVEL` accepts (pino's names). */
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

/**
 * Merges flags over environment over defaults and validates the result.
 * Throws `OrgError` (invalid_request) naming the offending flag or variable.
 */
export function resolveConfig(flags: ServeFlags = {}, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), packageDir?: string): OrgConfig {
  const adminToken = env.ORG_ADMIN_TOKEN?.trim();
  if (adminToken !== undefined && adminToken.length > 0 && adminToken.length < 16) {
    throw invalid('ORG_ADMIN_TOKEN must be at least 16 characters long');
  }
  const port = flags.port ?? env.ORG_PORT;
  const rate = env.ORG_RATE_LIMIT;
  const syncTimeout = flags.syncTimeout ?? env.ORG_SYNC_TIMEOUT;
  const smtpPort = flags.smtpPort ?? env.ORG_SMTP_PORT;
  const metricsPort = flags.metricsPort ?? env.ORG_METRICS_PORT;
  const tracesUrl = otlpTracesUrl(env);
  const corsOrigins =
    flags.corsOrigin && flags.corsOrigin.length > 0
      ? parseCorsOrigins(flags.corsOrigin, '--cors-origin')
      : parseCorsOrigins(env.ORG_CORS_ORIGINS ? [env.ORG_CORS_ORIGINS] : [], 'ORG_CORS_ORIGINS');
  const trustProxy =
    flags.trustProxy && flags.trustProxy.length > 0
      ? parseTrustedProxies(flags.trustProxy, '--trust-proxy')
      : parseTrustedProxies(env.ORG_TRUST_PROXY ? [env.ORG_TRUST_PROXY] : [], 'ORG_TRUST_PROXY');
  const egressAllow =
    flags.allowEgress && flags.allowEgress.length > 0
      ? parseEgressAllow(flags.allowEgress, '--allow-egress')
      : parseEgressAllow(env.ORG_EGRESS_ALLOW ? [env.ORG_EGRESS_ALLOW] : [], 'ORG_EGRESS_ALLOW');
  const maxQueued = flags.maxQueuedTurns ?? env.ORG_MAX_QUEUED_TURNS;
  const artifactQuota = flags.artifactQuota ?? env.ORG_ARTIFACT_QUOTA;
  const inboundSecret = env.ORG_INBOUND_SECRET?.trim();
  const storeUrl = (flags.store ?? env.ORG_STORE_URL)?.trim() || undefined;
  if (storeUrl !== undefined && !/^postgres(ql)?:\/\/[^\s]+$/.test(storeUrl)) {
    throw invalid(`${flags.store === undefined ? 'ORG_STORE_URL' : '--store'} must be a PostgreSQL URL (postgres://user:password@host:port/database)`);
  }
  const lease = env.ORG_LEASE_MS;
  const skillsRemote = remoteLocation((flags.skillsRemote ?? env.ORG_SKILLS_REMOTE)?.trim() || undefined);
  const skillsFetch = env.ORG_SKILLS_FETCH_MS;
  const webhookRetries = env.ORG_WEBHOOK_RETRIES?.trim() || undefined;
  if (inboundSecret !== undefined && inboundSecret.length > 0 && inboundSecret.length < 16) {
    throw invalid('ORG_INBOUND_SECRET must be at least 16 characters long');
  }
  const logLevel = (env.ORG_LOG_LEVEL?.trim() || 'warn').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) throw invalid(`ORG_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.ORG_LOG_LEVEL}"`);
  const sseKeepalive = flags.sseKeepalive ?? env.ORG_SSE_KEEPALIVE;
  const shutdownGrace = flags.shutdownGrace ?? env.ORG_SHUTDOWN_GRACE;
  const host = flags.host ?? env.ORG_HOST ?? '127.0.0.1';
  if (host.trim() === '' || /\s/.test(host)) throw invalid(`${flags.host === undefined ? 'ORG_HOST' : '--host'} must be a host name or address, got "${host}"`);
  if (smtpPort !== undefined && !inboundSecret) {
    throw invalid(`${flags.smtpPort === undefined ? 'ORG_SMTP_PORT' : '--smtp-port'} needs ORG_INBOUND_SECRET (at least 16 characters): it is the password SMTP clients sign in with`);
  }
  if (env.ORG_SMTP_URL) parseUrl(env.ORG_SMTP_URL, 'ORG_SMTP_URL', ['smtp', 'smtps']);
  if (env.ORG_PUBLIC_URL) parseUrl(env.ORG_PUBLIC_URL, 'ORG_PUBLIC_URL', ['http', 'https']);
  if (env.ORG_MAIL_FROM !== undefined && !/^[^\s@<>]+@[^\s@<>]+$/.test(env.ORG_MAIL_FROM)) throw invalid(`ORG_MAIL_FROM must be an e-mail address, got "${env.ORG_MAIL_FROM}"`);
  const maxRounds = env.ORG_LLM_MAX_ROUNDS?.trim();
  if (maxRounds !== undefined && maxRounds !== '' && !(/^\d{1,4}$/.test(maxRounds) && Number(maxRounds) >= 1 && Number(maxRounds) <= 1000)) {
    throw invalid(`ORG_LLM_MAX_ROUNDS must be a whole number from 1 to 1000, got "${env.ORG_LLM_MAX_ROUNDS}"`);
  }
  const llm = env.ORG_LLM_URL
    ? { url: env.ORG_LLM_URL.replace(/\/+$/, ''), model: env.ORG_LLM_MODEL ?? '', apiKey: env.ORG_LLM_API_KEY ?? '', ...(maxRounds ? { maxToolRounds: Number(maxRounds) } : {}) }
    : undefined;
  if (llm && !llm.model) throw invalid('ORG_LLM_MODEL must be set when ORG_LLM_URL is set');
  if (llm && !/^https?:\/\//.test(llm.url)) throw invalid('ORG_LLM_URL must be an http(s) URL');
  const homeLocation = locateHome(flags.home, env, cwd, packageDir);
  const config: OrgConfig = {
    home: homeLocation.home,
    homeLocation,
    host,
    port: port === undefined ? 4780 : parsePort(port, flags.port === undefined ? 'ORG_PORT' : '--port'),
    ...(adminToken ? { adminToken } : {}),
    rateLimit: rate === undefined ? 1200 : Math.floor(parsePositive(rate, 'ORG_RATE_LIMIT')),
    authFailureLimit: env.ORG_AUTH_FAILURE_LIMIT === undefined ? 60 : Math.floor(parsePositive(env.ORG_AUTH_FAILURE_LIMIT, 'ORG_AUTH_FAILURE_LIMIT')),
    ...(env.ORG_SMTP_URL ? { smtpUrl: env.ORG_SMTP_URL } : {}),
    mailFrom: env.ORG_MAIL_FROM ?? 'org@localhost',
    ...(env.ORG_PUBLIC_URL ? { publicUrl: env.ORG_PUBLIC_URL.replace(/\/+$/, '') } : {}),
    demo: flags.demo ?? true,
    configDir: resolve(env.ORG_CONFIG_DIR ?? join(homedir(), '.config', 'org')),
    bodyLimit: 25 * 1024 * 1024,
    shutdownGraceMs: shutdownGrace === undefined ? 10_000 : parseSeconds(shutdownGrace, flags.shutdownGrace === undefined ? 'ORG_SHUTDOWN_GRACE' : '--shutdown-grace', 0.05, 3600),
    syncTimeoutMs: syncTimeout === undefined ? 120_000 : parsePositive(syncTimeout, '--sync-timeout') * 1000,
    keepaliveMs: sseKeepalive === undefined ? 15_000 : parseSeconds(sseKeepalive, flags.sseKeepalive === undefined ? 'ORG_SSE_KEEPALIVE' : '--sse-keepalive', 0.05, 3600),
    logLevel: logLevel as OrgConfig['logLevel'],
    ...(llm ? { llm } : {}),
    watchSkills: true,
    commit: flags.commit ?? false,
    ...(inboundSecret ? { inboundSecret } : {}),
    inboundDomain: (env.ORG_INBOUND_DOMAIN?.trim() || 'localhost').toLowerCase(),
    ...(env.ORG_INBOUND_AUTHSERV_ID?.trim() ? { inboundAuthservId: parseAuthservId(env.ORG_INBOUND_AUTHSERV_ID.trim()) } : {}),
    ...(smtpPort === undefined ? {} : { smtpPort: parsePort(smtpPort, flags.smtpPort === undefined ? 'ORG_SMTP_PORT' : '--smtp-port') }),
    corsOrigins,
    trustProxy,
    egressAllow,
    maxQueuedTurns: maxQueued === undefined ? 20 : parseCount(maxQueued, flags.maxQueuedTurns === undefined ? 'ORG_MAX_QUEUED_TURNS' : '--max-queued-turns', 1, 10_000),
    artifactQuotaBytes: artifactQuota === undefined ? 512 * MIB : parseCount(artifactQuota, flags.artifactQuota === undefined ? 'ORG_ARTIFACT_QUOTA' : '--artifact-quota', 1, 1024 * 1024) * MIB,
    ...(tracesUrl ? { otlpTracesUrl: tracesUrl } : {}),
    metrics: flags.metrics === true || metricsPort !== undefined || env.ORG_METRICS === '1' || env.ORG_METRICS === 'true',
    ...(metricsPort === undefined ? {} : { metricsPort: parsePort(metricsPort, flags.metricsPort === undefined ? 'ORG_METRICS_PORT' : '--metrics-port') }),
    ...(storeUrl ? { storeUrl } : {}),
    leaseMs: lease === undefined ? 15_000 : parsePositive(lease, 'ORG_LEASE_MS'),
    delegationDepth: parseDepth(env.ORG_DELEGATION_DEPTH),
    ...(skillsRemote ? { skillsRemote } : {}),
    skillsFetchMs: skillsFetch === undefined ? 10_000 : parsePositive(skillsFetch, 'ORG_SKILLS_FETCH_MS'),
    ...(webhookRetries === undefined ? {} : { webhookRetrySchedule: parseRetrySchedule(webhookRetries, 'ORG_WEBHOOK_RETRIES') }),
    connections: resolveConnectionLimits(flags, env),
  };
  if (config.smtpPort !== undefined && config.smtpPort !== 0 && config.smtpPort === config.port) {
    throw invalid(`the SMTP port and the HTTP port must differ, both are ${config.port}`);
  }
  return config;
}

/** The OTLP/HTTP traces URL the standard `OTEL_*` variables ask for, if any. */
export function otlpTracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  if ((env.OTEL_TRACES_EXPORTER ?? 'otlp').trim().toLowerCase() === 'none') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = traces || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (url !== undefined && !/^https?:\/\//.test(url)) {
    throw invalid(`${traces ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT'} must be an http(s) URL, got "${url}"`);
  }
  return url;
}

/** Paths of the home layout (API.md §1). */
export function homePaths(home: string) {
  const state = join(home, '.org');
  return {
    home,
    skills: join(home, 'skills'),
    state,
    users: join(state, 'users.json'),
    keys: join(state, 'keys.json'),
    invites: join(state, 'invites.json'),
    structures: join(state, 'structures'),
    outbox: join(state, 'outbox'),
    index: join(state, 'index'),
    cache: join(state, 'cache'),
  };
}

/** The home layout paths. */
export type HomePaths = ReturnType<typeof homePaths>;
