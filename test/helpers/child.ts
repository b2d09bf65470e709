/**
 * `org serve` as a real child process (the built CLI, `bin/org.js`), for tests that need
 * a separate process: crash safety (SIGKILL at a random instant), graceful shutdown.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Root of the repository. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The `org` executable. */
export const ORG_BIN = join(REPO_ROOT, 'bin', 'org.js');
/** The compiled CLI (tsc's output) that the bundle is made from. */
export const DIST_MAIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');
/** The bundled CLI that `bin/org.js` loads (scripts/bundle-cli.mjs). */
export const DIST_BUNDLE = join(REPO_ROOT, 'dist', 'bundle', 'main.js');

/** True when the CLI has been built and bundled (`npm run build`). */
export function isBuilt(): boolean {
  return existsSync(DIST_MAIN) && existsSync(DIST_BUNDLE);
}

/**
 * Builds the CLI with `tsc -p tsconfig.build.json` and bundles it when `dist/` is missing
 * (`npm test` builds first, so this only matters when a test file runs alone on a fresh clone).
 */
export function ensureBuilt(): void {
  if (isBuilt()) return;
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: 'pipe' });
  } catch (error) {
    // tsc exits non-zero on a type error but still emits; only a missing build is fatal.
    if (!existsSync(DIST_MAIN)) throw error;
  }
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'bundle-cli.mjs')], { cwd: REPO_ROOT, stdio: 'pipe' });
}

/** How a child process ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running `org serve` child. */
export interface ServeChild {
  /** Base URL from the listening line, e.g. `http://127.0.0.1:41234`. */
  url: string;
  process: ChildProcess;
  /** Every stdout line so far. */
  stdout: string[];
  /** Resolves when the server says its skill library is loaded (and its start-up writes are done). */
  ready: Promise<void>;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<ChildExit>;
  /** Sends `signal` and resolves when the process has exited. */
  stop(signal: NodeJS.Signals): Promise<ChildExit>;
}

/** Options of `startServe`. */
export interface StartServeOptions {
  /** The `--home` given; without it the server picks its default home (API.md §1). */
  home?: string;
  /** Working folder of the process (default: the test process's). */
  cwd?: string;
  /**
   * Environment added to a clean one (ORG_* of the test process are not inherited). It
   * starts with `ORG_EGRESS_ALLOW=loopback`, where tests run their containers, tools and
   * webhook receivers; give `ORG_EGRESS_ALLOW: ''` for the production default.
   */
  env?: Record<string, string>;
  /** Extra arguments after `serve --home <home> --port 0`. */
  args?: string[];
}

const LISTENING = 'org: listening on ';

/** Servers started here and still running: killed when the test process exits, whatever the outcome. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
const READY = 'org: skill library ready';

/** Starts `node bin/org.js serve [--home <home>] --port 0 ...` and waits for its listening line. */
export function startServe(options: StartServeOptions): Promise<ServeChild> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('ORG_')) env[name] = value;
  Object.assign(env, { ORG_EGRESS_ALLOW: 'loopback' }, options.env);
  const home = options.home === undefined ? [] : ['--home', options.home];
  const child = spawn(process.execPath, [ORG_BIN, 'serve', ...home, '--port', '0', ...(options.args ?? [])], {
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  let stderr = '';
  let libraryReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    libraryReady = resolve;
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const stop = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };

  // A start that hangs is ended by the test's own timeout; the process goes with the test process.
  running.add(child);
  void exited.then(() => running.delete(child));
  return new Promise<ServeChild>((resolve, reject) => {
    void exited.then(({ code, signal }) => {
      reject(new Error(`org serve exited early (code ${code}, signal ${signal})\nstdout: ${stdout.join('\n')}\nstderr: ${stderr}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      stdout.push(line);
      if (line.startsWith(READY)) libraryReady();
      if (line.startsWith(`${LISTENING}http://`)) {
        resolve({ url: line.slice(LISTENING.length).trim(), process: child, stdout, ready, stderr: () => stderr, exited, stop });
      }
    });
  });
}
