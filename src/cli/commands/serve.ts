/**
 * `org serve`: takes the home's lock, seeds a new home with the bundled skills, starts
 * the HTTP server, prints the listening line, and on the very first start creates the
 * owner user (its token printed once and saved for the CLI) and the demo structure.
 * Stops gracefully on SIGTERM/SIGINT.
 */
import { mkdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { createApp, PACKAGE_ROOT, type App } from '../../app.js';
import { homePaths, resolveConfig, type OrgConfig, type ServeFlags } from '../../core/config.js';
import { readCredentials, saveLogin } from '../../core/credentials.js';
import { seedBundledSkills, shippedSkills } from '../../core/skills/index.js';
import { acquireHomeLock } from '../../core/storage/index.js';
import { errorFields, type Log } from '../../core/util/log.js';
import { createMcpHttpHandler } from '../../mcp/http.js';
import { buildServer } from '../../server/index.js';
import type { MetricsListener } from '../../server/metrics/index.js';
import type { SmtpListener } from '../../email/smtp-listener.js';
import type { Output } from '../output.js';
import { VERSION } from '../version.js';
import { redactUrl } from '../redact.js';

export { redactUrl };

export interface RunningServer {
  app: App;
  server: FastifyInstance;
  url: string;
  /** Stops accepting, waits for running work (bounded), flushes state. */
  stop(): Promise<void>;
}

/** Formats a base URL for a host and port (IPv6 hosts in brackets). */
export function baseUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Flags of `org serve` beyond the instance configuration. */
export interface ServeCommandFlags extends ServeFlags {
  /** false: a new home starts with an empty skills/ (commander's `--no-bundled`). */
  bundled?: boolean;
}

/** Starts a server as `org serve` does and returns it (used by the command and by tests). */
export async function runServe(flags: ServeCommandFlags, output: Output, env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  return startServer(flags, output, env);
}

async function startServer(flags: ServeCommandFlags, output: Output, env: NodeJS.ProcessEnv): Promise<RunningServer> {
  // Every option is checked here, before anything starts or listens.
  const config = resolveConfig(flags, env, process.cwd(), PACKAGE_ROOT);
  // One logger for the server and every service of the app: all levels reach it, and
  // ORG_LOG_LEVEL (default warn) decides what is written to stderr.
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization'] }, process.stderr);
  const log: Log = (level, message, fields) => logger[level](fields ?? {}, message);
  const paths = homePaths(config.home);
  await mkdir(paths.state, { recursive: true });
  const lock = await acquireHomeLock(paths.state, config.home);
  let app: App;
  let seeded = 0;
  try {
    // A library shared through a git remote comes from the remote, never from the bundle.
    if (flags.bundled !== false && !config.skillsRemote) seeded = (await seedBundledSkills(paths.skills, await shippedSkills(PACKAGE_ROOT))).copied.length;
    // The library loads once the server listens (see listen below).
    app = await createApp(config, { log, deferSkillLoad: true });
  } catch (error) {
    await lock.release();
    throw error;
  }
  const running = await listen(app, config, lock, output, logger, log);
  if (seeded > 0) output.out(`org: new home: copied ${seeded} bundled skills into ${paths.skills} (yours to edit; --no-bundled starts empty)`);
  return running;
}

async function listen(app: App, config: ReturnType<typeof resolveConfig>, lock: Awaited<ReturnType<typeof acquireHomeLock>>, output: Output, logger: Logger, log: Log): Promise<RunningServer> {
  const server = await buildServer(app, {
    version: VERSION,
    loggerInstance: logger,
    // The composition root wires the MCP layer into the server (which never imports it).
    mcp: createMcpHttpHandler(app, { version: VERSION, log }),
  });
  // The SMTP listener binds first: a port it cannot have stops the start before the
  // listening line is printed.
  let smtp: SmtpListener | undefined;
  let metricsListener: MetricsListener | undefined;
  try {
    if (config.smtpPort !== undefined) {
      // Loaded only when asked for: the SMTP server and the mail parser are heavy.
      const { startSmtpListener } = await import('../../email/smtp-listener.js');
      smtp = await startSmtpListener({
        host: config.host,
        port: config.smtpPort,
        secret: config.inboundSecret,
        name: config.inboundDomain,
        sizeLimit: config.bodyLimit,
        inbound: app.inbound,
        log,
      });
    }
    // A separate metrics port is bound before the API's, for the same reason as SMTP's.
    if (config.metricsPort !== undefined && server.orgMetrics) {
      const { startMetricsListener } = await import('../../server/metrics/listener.js');
      metricsListener = await startMetricsListener(server.orgMetrics, { host: config.host, port: config.metricsPort, onError: (error) => log('error', 'metrics: collection failed', errorFields(error)) });
    }
    await server.listen({ host: config.host, port: config.port });
  } catch (error) {
    await metricsListener?.close();
    await smtp?.close();
    await server.close();
    await app.close();
    await lock.release();
    throw error;
  }
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = baseUrl(config.host, port);
  app.setListeningUrl(url);
  await lock.setUrl(url);
  output.out(`org: listening on ${url}`);
  output.out(`org: web UI at ${url}/`);
  output.out(`org: home ${config.home}`);
  const located = config.homeLocation;
  if (located?.source === 'user-default') {
    output.out(`org: (your own home: this folder, ${located.packageDir}, is the org package, whose skills/ is the library it ships; --home DIR or ORG_HOME serves another)`);
  }
  if (config.storeUrl) output.out(`org: state in PostgreSQL ${redactUrl(config.storeUrl)} as instance ${app.instanceId ?? ''}`);
  if (config.skillsRemote) output.out(`org: skills shared through ${redactUrl(config.skillsRemote)}`);
  if (smtp) output.out(`org: inbound SMTP on ${config.host}:${smtp.port}`);
  output.out(runtimeLine(config));

  if (metricsListener) output.out(`org: metrics at ${baseUrl(config.host, metricsListener.port)}/metrics`);
  else if (config.metrics) output.out(`org: metrics at ${url}/metrics`);
  // Only now: loading the library before listening would delay the listen by the time it
  // takes to stat every skill file and decode the index (seconds at 10,000 skills).
  app.startSkillLoad();

  const first = await app.firstStart();
  if (first) {
    // The token is saved for this URL; the CLI's default server changes only with
    // `org login` (or when there is none yet), so a second server never re-points it.
    const before = (await readCredentials(config.configDir)).default;
    const file = await saveLogin(config.configDir, url, { token: first.token, email: first.email }, { makeDefault: before === undefined });
    output.out(`org: first start: created user ${first.email}`);
    output.out(`org: token (shown once, saved to ${file}): ${first.token}`);
    if (before !== undefined && before !== url) output.out(`org: the CLI's default server stays ${before}; use this one with --url ${url}, or make it the default with: org login --url ${url}`);
    output.out(`org: sign in to the web UI: ${url}/#token=${first.token}`);
    if (first.demoStructureId) output.out(`org: created the "Demo" structure ${first.demoStructureId} from the exec-team template`);
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      // The drain: readiness fails and new turns are refused (503, Retry-After) while the
      // listener stays open for everything else; streams of runs executing on other
      // instances end with a final retry: field (their clients resume elsewhere).
      app.drain();
      // Running turns get the grace period to end (their streams end with them), then are
      // closed as interrupted; any stream left ends with retry: too.
      await app.chat.close(config.shutdownGraceMs);
      app.streams.endAll();
      const smtpClosed = smtp?.close();
      const metricsClosed = metricsListener?.close();
      const closed = server.close();
      // A connection busy when closing began turns idle once its response is sent, and a
      // keep-alive client would hold it open (up to keepAliveTimeout, 72 s), so close()
      // would not resolve: close such connections as soon as they go idle.
      const sweep = setInterval(() => server.server.closeIdleConnections(), 50);
      try {
        await closed;
      } finally {
        clearInterval(sweep);
      }
      await smtpClosed;
      await metricsClosed;
      await app.close();
      await lock.release();
    })();
    return stopping;
  };
  return { app, server, url, stop };
}

/** The start-up line that says what nodes run on. */
export function runtimeLine(config: Pick<OrgConfig, 'llm'>): string {
  const containers = 'a node with a container_url runs on its container';
  if (config.llm) return `org: nodes run on the LLM ${config.llm.model} at ${redactUrl(config.llm.url)} (${containers})`;
  return `org: nodes run on the built-in local runtime, which follows skills step by step (${containers}; ORG_LLM_URL and ORG_LLM_MODEL connect an LLM)`;
}

/** At most this many skipped files are named at start-up; `org skills problems` lists them all. */
const SKIPPED_SHOWN = 10;

/** Start-up lines naming the skill files the library skipped, and why, in words. */
export function skippedLines(problems: readonly { file: string; message: string; line?: number }[]): string[] {
  if (problems.length === 0) return [];
  const lines = problems.slice(0, SKIPPED_SHOWN).map((problem) => `org: skipped skills/${problem.file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
  const more = problems.length - lines.length;
  lines.push(`org: ${more > 0 ? `and ${more} more; ` : ''}org skills problems lists the skipped files`);
  return lines;
}

/** Runs `org serve` until a signal arrives; resolves with the exit code. */
export async function serveUntilSignal(flags: ServeCommandFlags, output: Output): Promise<number> {
  const running = await runServe(flags, output, process.env);
  return new Promise<number>((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) return;
      received = true;
      output.err(`org: ${signal} received, shutting down`);
      const force = setTimeout(() => {
        output.err('org: shutdown grace period over, exiting');
        // Drop whatever is still open, so the process can actually end.
        running.server.server.closeAllConnections();
        resolve(0);
      }, running.app.config.shutdownGraceMs + 2000);
      force.unref();
      running.stop().then(
        () => resolve(0),
        (error: unknown) => {
          output.err(`org: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
          resolve(1);
        },
      );
    };
    // `on`, not `once`: the handler must stay registered while state is flushed. During an
    // atomic write, write-file-atomic's signal-exit re-raises a signal that no one else
    // listens to, which would kill the process with the write half done.
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    // The library loads after the server listens; a library that cannot be read at all
    // (not a bad file: those are problems) ends the server as a failed start would.
    running.app.skills.ready().then(
      () => {
        output.out(`org: skill library ready (${running.app.skillCount()} skills)`);
        for (const line of skippedLines(running.app.skills.problems())) output.out(line);
      },
      (error: unknown) => {
        output.err(`org: the skill library could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
        running.stop().then(
          () => resolve(1),
          () => resolve(1),
        );
      },
    );
  });
}
