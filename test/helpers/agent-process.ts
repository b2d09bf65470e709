/**
 * The example container agent (examples/container-agent/server.mjs) as a real child
 * process, as an operator runs it: `node server.mjs --port 0`. Its log lines are kept,
 * and a test waits on them (e.g. "client closed (run …)") through a notifier.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './child.js';
import { notifier } from './notifier.js';

/** A running agent process. */
export interface AgentProcess {
  /** Its base URL (the turn endpoint is `${url}/turn`). */
  url: string;
  /** Every line it printed so far. */
  readonly lines: string[];
  /** Resolves once a printed line contains `text`. */
  printed(text: string): Promise<void>;
  /** Stops it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
}

const LISTENING = 'container-agent: listening on ';

/** Starts the example agent on a free loopback port. */
export function startAgentProcess(): Promise<AgentProcess> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'examples', 'container-agent', 'server.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const changes = notifier();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    void exited.then(() => reject(new Error(`the example agent exited early:\n${lines.join('\n')}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      changes.notify();
      if (!line.startsWith(LISTENING)) return;
      resolve({
        url: line.slice(LISTENING.length).trim(),
        lines,
        printed: (text) => changes.until(() => lines.some((printed) => printed.includes(text)), `the agent to print "${text}"`),
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
