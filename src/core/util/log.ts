/**
 * The one way core reports what it does: a single required function with a level,
 * like MiniSearch's `logger(level, message, code)`. A caller cannot wire `warn` and
 * silently drop `error` (as it could with an object of optional methods): every record
 * reaches the one function, which decides what to keep.
 *
 * @example
 * const log: Log = (level, message, fields) => pino[level](fields ?? {}, message);
 * log('error', 'skill watcher error', errorFields(error));
 */

/** Severities, lowest first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** The severity of a record. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Structured members of a record (never tokens or secrets). */
export type LogFields = Record<string, unknown>;

/** Receives every record core reports. Must not throw. */
export type Log = (level: LogLevel, message: string, fields?: LogFields) => void;

/** A log that keeps nothing (tests, benchmarks). */
export const silentLog: Log = () => undefined;

/** The fields of a caught error: its message (and its code when it has one), never its stack. */
export function errorFields(error: unknown): LogFields {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { error: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { error: String(error) };
}

/** True when `level` is at least `threshold`. */
export function atLeast(level: LogLevel, threshold: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}

/**
 * A log that formats each record kept as one line, `org: <level>: <message> <fields as JSON>`,
 * and hands it to `write` (for example stderr). Records below `threshold` are not kept.
 */
export function createLineLog(write: (line: string) => void, threshold: LogLevel = 'info'): Log {
  return (level, message, fields) => {
    if (!atLeast(level, threshold)) return;
    const extra = fields && Object.keys(fields).length > 0 ? ` ${safeJson(fields)}` : '';
    write(`org: ${level}: ${message}${extra}\n`);
  };
}

/** Guarded: a logger must never throw (cyclic or BigInt members are shown as text). */
function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * A log that never throws, whatever `log` does: reporting a failure must not become a
 * second failure (an unhandled rejection in a `.catch` handler ends the process).
 */
export function guardLog(log: Log): Log {
  return (level, message, fields) => {
    try {
      log(level, message, fields);
    } catch {
      // Nothing sensible is left to report to.
    }
  };
}
