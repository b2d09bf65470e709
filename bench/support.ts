/** Helpers shared by the benchmarks: settings from the environment, an SSE reader, the example container agent as a child. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
export async function spawnAgent(): Promise<{ url: string; pid: number; close(): Promise<void> }> {
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
    pid: child.pid!,
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** CPU time (user + system) a process has used so far, in µs, from /proc (Linux); NaN elsewhere. */
export function processCpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start past the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks / CLOCK_TICKS) * 1e6;
  } catch {
    return NaN;
  }
}

/** USER_HZ: the unit of /proc CPU times (100 on every common Linux). */
const CLOCK_TICKS = 100;
