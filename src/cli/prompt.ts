/**
 * Asking a person for a value in the terminal (node:readline): the question on stdout,
 * the answer read from stdin; a secret answer is not echoed.
 */
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/** Options of one question. */
export interface PromptOptions {
  /** Do not echo what is typed (tokens). */
  secret?: boolean;
}

/** Asks a question and resolves with the trimmed answer. */
export type Prompt = (question: string, options?: PromptOptions) => Promise<string>;

/** A prompt on a terminal's streams. */
export function terminalPrompt(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): Prompt {
  return async (question, options = {}) => {
    stdout.write(question);
    // While a secret is typed, what readline would echo goes nowhere.
    const echo = options.secret ? new Writable({ write: (_chunk, _encoding, done) => done() }) : stdout;
    const rl = createInterface({ input: stdin, output: echo, terminal: Boolean((stdin as { isTTY?: boolean }).isTTY) });
    try {
      return (await rl.question('')).trim();
    } finally {
      rl.close();
      if (options.secret) stdout.write('\n');
    }
  };
}
