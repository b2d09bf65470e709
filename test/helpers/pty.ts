/**
 * A program in a real pseudo-terminal, for end-to-end tests of interactive commands.
 *
 * The program runs in a PTY (`@lydell/node-pty`, prebuilt: nothing to install) and its
 * output is rendered by a headless xterm (`@xterm/headless`), so tests read the screen a
 * person would see (cursor moves, redraws and colours applied), not the raw byte stream.
 * Waiting is driven by the output itself: every chunk the terminal has parsed re-checks
 * the waiters, and nothing polls a clock. A wait has no deadline of its own: only the
 * test's timeout ends one that never comes, and the failed test then shows what each
 * pending wait was for and the screen at that moment.
 *
 * @example
 * const term = startOrgTerminal(['chat', 'Acme', 'exec-ceo'], { env: { ORG_URL: url, ORG_TOKEN: token } });
 * await term.waitForText('exec-ceo ›');
 * term.type('hello');
 * term.press('Enter');
 * await term.waitForText(/✔ .+/);
 * term.press('Ctrl-C');
 * expect((await term.exited).exitCode).toBe(0);
 */
import { spawn, type IPty } from '@lydell/node-pty';
import xterm from '@xterm/headless';
import { onTestFailed } from 'vitest';
import { ORG_BIN } from './child.js';

const { Terminal } = xterm;

/** Keys {@link TerminalSession.press} knows, and the bytes a terminal sends for them. */
export const KEYS = {
  Enter: '\r',
  Tab: '\t',
  Escape: '\x1b',
  Backspace: '\x7f',
  Up: '\x1b[A',
  Down: '\x1b[B',
  Right: '\x1b[C',
  Left: '\x1b[D',
  'Ctrl-C': '\x03',
  'Ctrl-D': '\x04',
  'Alt-Enter': '\x1b\r',
} as const;

/** A key name of {@link KEYS}. */
export type KeyName = keyof typeof KEYS;

/** How a terminal program ended. */
export interface TerminalExit {
  exitCode: number;
  signal?: number;
}

/** Options of {@link startTerminal}. */
export interface TerminalOptions {
  /** Variables added to the environment (the test's own, less CI markers, see below). */
  env?: Record<string, string>;
  cwd?: string;
  /** Terminal size; default 120 × 40. */
  cols?: number;
  rows?: number;
}

/** A running terminal program. */
export interface TerminalSession {
  /** Process id of the program. */
  readonly pid: number;
  /** Types text as a person would (no Enter). */
  type(text: string): void;
  /** Presses a named key. */
  press(key: KeyName): void;
  /** The visible screen, one line per row, trailing blanks trimmed. */
  screen(): string;
  /** Scrollback and screen together (what has scrolled off first), wrapped rows joined. */
  text(): string;
  /** Resolves with {@link text} once it contains `expected` (or matches it); fails with the screen when the program ends first. */
  waitForText(expected: string | RegExp, what?: string): Promise<string>;
  /** Resolves with {@link text} once `predicate` holds for it. */
  waitFor(predicate: (text: string) => boolean, what: string): Promise<string>;
  /** Settles when the program exits. */
  readonly exited: Promise<TerminalExit>;
  /** True once the program has exited. */
  hasExited(): boolean;
  /** Ends the program (SIGTERM, then SIGKILL if it lingers) and releases the terminal. */
  close(): Promise<void>;
}

/** Environment markers that make Ink (and other tools) behave as in CI: no live frames. */
function isCiMarker(name: string): boolean {
  return name === 'CI' || name === 'CONTINUOUS_INTEGRATION' || name.startsWith('CI_');
}

/** Starts `file args…` in a pseudo-terminal rendered by a headless xterm. */
export function startTerminal(file: string, args: string[], options: TerminalOptions = {}): TerminalSession {
  const cols = options.cols ?? 120;
  const rows = options.rows ?? 40;
  const env: Record<string, string> = {};
  // A person's terminal is not CI: Ink draws no live frames when CI is set.
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !isCiMarker(name)) env[name] = value;
  Object.assign(env, { TERM: 'xterm-256color', COLUMNS: String(cols), LINES: String(rows) }, options.env);

  const terminal = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  const pty: IPty = spawn(file, args, { name: 'xterm-256color', cols, rows, cwd: options.cwd ?? process.cwd(), env });
  const waiters = new Set<() => void>();
  const check = () => {
    for (const waiter of [...waiters]) waiter();
  };
  let exit: TerminalExit | undefined;
  let pending = 0;
  let drained: (() => void) | undefined;

  pty.onData((data) => {
    pending++;
    terminal.write(data, () => {
      pending--;
      check();
      if (pending === 0) drained?.();
    });
  });
  // Answers the program's terminal queries (cursor position, device attributes) as a terminal would.
  terminal.onData((data) => {
    if (!exit) pty.write(data);
  });
  const exited = new Promise<TerminalExit>((resolve) => {
    pty.onExit((event) => {
      exit = event.signal ? { exitCode: event.exitCode, signal: event.signal } : { exitCode: event.exitCode };
      // Output already read is rendered before anyone hears of the exit.
      const done = () => {
        resolve(exit!);
        check();
      };
      if (pending === 0) done();
      else drained = done;
    });
  });

  const rowsOf = (from: number, to: number): string[] => {
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let y = from; y < to; y++) {
      const line = buffer.getLine(y);
      if (!line) continue;
      const content = line.translateToString(true);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += content;
      else lines.push(content);
    }
    return lines;
  };
  const text = () => rowsOf(0, terminal.buffer.active.length).join('\n').trimEnd();

  const waitFor = (predicate: (text: string) => boolean, what: string): Promise<string> =>
    new Promise((resolve, reject) => {
      let settled = false;
      const waiter = () => {
        const current = text();
        if (predicate(current)) {
          settled = true;
          waiters.delete(waiter);
          resolve(current);
        } else if (exit && pending === 0) {
          settled = true;
          waiters.delete(waiter);
          reject(new Error(`the program exited (code ${exit.exitCode}) before ${what} appeared; the screen shows:\n${current}`));
        }
      };
      // A wait that never ends is ended by the test's timeout: say then what it waited for.
      try {
        onTestFailed(() => {
          if (!settled) console.error(`still waiting for ${what}; the screen shows:\n${text()}`);
        });
      } catch {
        // Not inside a test (a hook): its failure names the hook instead.
      }
      waiters.add(waiter);
      waiter();
    });

  return {
    pid: pty.pid,
    type(input) {
      pty.write(input);
    },
    press(key) {
      pty.write(KEYS[key]);
    },
    screen() {
      const buffer = terminal.buffer.active;
      return rowsOf(buffer.viewportY, buffer.viewportY + rows).join('\n').trimEnd();
    },
    text,
    waitFor,
    waitForText(expected, what) {
      const label = what ?? (typeof expected === 'string' ? JSON.stringify(expected) : String(expected));
      return waitFor((current) => (typeof expected === 'string' ? current.includes(expected) : expected.test(current)), label);
    },
    exited,
    hasExited: () => exit !== undefined,
    async close() {
      if (!exit) {
        pty.kill('SIGTERM');
        const lingering = setTimeout(() => {
          if (!exit) pty.kill('SIGKILL');
        }, 5_000);
        await exited;
        clearTimeout(lingering);
      }
      waiters.clear();
      terminal.dispose();
    },
  };
}

/** Starts the built `org` CLI (`bin/org.js`) with `args` in a pseudo-terminal. */
export function startOrgTerminal(args: string[], options: TerminalOptions = {}): TerminalSession {
  return startTerminal(process.execPath, [ORG_BIN, ...args], options);
}
