/**
 * Helpers of the CLI tests: a captured Output, runner dependencies pointing at a test
 * instance, a scripted runtime that emits every event type, and a TCP proxy that can
 * drop its connections (to test resuming a chat stream).
 */
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { CommandDeps } from '../src/cli/deps.js';
import type { Output } from '../src/cli/output.js';
import type { EventInput } from '../src/core/chat/types.js';
import type { TestInstance } from './helpers/instance.js';
import { onTestFailed } from 'vitest';

/** An Output that keeps every line. */
export interface Captured {
  output: Output;
  out: string[];
  err: string[];
  /** stdout lines joined. */
  text(): string;
  /** stderr lines joined. */
  errText(): string;
  clear(): void;
}

/** Captures the lines a runner writes. */
export function capture(): Captured {
  const out: string[] = [];
  const err: string[] = [];
  return {
    output: { out: (line) => out.push(line), err: (line) => err.push(line) },
    out,
    err,
    text: () => out.join('\n'),
    errText: () => err.join('\n'),
    clear() {
      out.length = 0;
      err.length = 0;
    },
  };
}

/** Runner dependencies for a test instance: its URL and a token in the environment, no terminal. */
export function depsFor(t: TestInstance, token: string, captured: Captured, extra: Partial<CommandDeps> = {}): Partial<CommandDeps> {
  return {
    output: captured.output,
    env: { ORG_URL: t.url, ORG_TOKEN: token, ORG_CONFIG_DIR: join(t.home, 'cli-config') },
    cwd: t.home,
    interactive: false,
    openEditor: () => Promise.reject(new Error('no editor in this test')),
    ...extra,
  };
}

/** One event of every type, in a plausible order, ending with `complete`. */
export const EVERY_EVENT: EventInput[] = [
  { type: 'thought', content: 'Thinking about the quarter' },
  { type: 'tool_call', content: { tool: 'search_skills', args: { query: 'close the books' } } },
  { type: 'tool_result', content: { tool: 'search_skills', result: { matches: [{ slug: 'run-month-end-close' }] } } },
  { type: 'milestone', content: { title: 'Ledger reconciled' } },
  { type: 'text', content: 'Hello ' },
  { type: 'text', content: 'world.' },
  { type: 'decision', content: { title: 'Accrue the invoice', body: 'Accrue it in March because the service was delivered then.' } },
  { type: 'skill_learned', content: { slug: 'close-the-books', name: 'Close the books' } },
  { type: 'complete', content: { summary: 'Closed March', artifacts: ['report.md', 'ledger.csv'] } },
];

/** A TCP proxy to a local port whose open connections can be dropped at will. */
export interface DropProxy {
  url: string;
  /** Connections accepted so far. */
  connections: number;
  /** Destroys every open connection (both sides). */
  dropAll(): void;
  close(): Promise<void>;
}

/** Starts a proxy in front of `target` (a base URL on 127.0.0.1). */
export async function startDropProxy(target: string): Promise<DropProxy> {
  const port = Number(new URL(target).port);
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    proxy.connections++;
    const outbound = tcpConnect(port, '127.0.0.1');
    sockets.add(inbound);
    sockets.add(outbound);
    inbound.pipe(outbound).pipe(inbound);
    const end = () => {
      inbound.destroy();
      outbound.destroy();
      sockets.delete(inbound);
      sockets.delete(outbound);
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const proxy: DropProxy = {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    connections: 0,
    dropAll() {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close() {
      proxy.dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

/**
 * Resolves once `predicate` holds, checked every 10 ms (the Ink test renderer announces no
 * frames). A wait has no deadline of its own: the test's timeout ends one that never
 * comes, and the failed test then names what was still awaited.
 */
export async function waitFor(predicate: () => boolean, what: string): Promise<void> {
  let waiting = true;
  onTestFailed(() => {
    if (waiting) console.error(`still waiting for ${what}`);
  });
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 10));
  waiting = false;
}
