/** Helpers shared by the benchmarks: settings from the environment, an SSE reader, the example container agent as a child. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/** A positive number from the environment variable `name`, or `fallback` when it is unset. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

/** Reads an SSE body, counting frames and keepalive comments; resolves at its end. */
export async function readSse(
  body: AsyncIterable<Buffer | string>,
  onFirst?: () => void,
): Promise<{ frames: number; keepalives: number; lastType: string | undefined }> {
  let frames = 0;
  let keepalives = 0;
  let tail = '';
  let last = '';
  for await (const chunk of body) {
    tail += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let end = tail.indexOf('\n\n');
    if (end < 0) continue;
    let start = 0;
    while (end >= 0) {
      const block = tail.slice(start, end);
      if (block.startsWith(':')) keepalives++;
      else if (block.includes('data: ')) {
        if (frames === 0) onFirst?.();
        frames++;
        last = block;
      }
      start = end + 2;
      end = tail.indexOf('\n\n', start);
    }
    tail = tail.slice(start);
  }
  const lastType = /"type":"([a-z_]+)"/.exec(last)?.[1];
  return { frames, keepalives, lastType };
}

/**
 * The example container agent in a child process of its own, so that it does not share
 * this process's event loop with org (or with the direct reader).
 */
export async function spawnAgent(): Promise<{ url: string; close(): Promise<void> }> {
  const script = fileURLToPath(new URL('../examples/container-agent/server.mjs', import.meta.url));
  const child = spawn(process.execPath, [script, '--port', '0', '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the container agent did not start: ${output}`)), 10_000);
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the container agent exited (${code}): ${output}`)));
  });
  child.stdout.resume();
  return {
    url,
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
