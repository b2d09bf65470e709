/** Where CLI commands write: injected so runners can be tested without a terminal. */

/** Output streams of a command. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}

/** The process's stdout and stderr. */
export const processOutput: Output = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
};
