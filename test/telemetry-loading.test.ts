/**
 * OpenTelemetry is loaded only when tracing is asked for: `org --version` and an
 * `org serve` without `OTEL_EXPORTER_OTLP_ENDPOINT` resolve no `@opentelemetry/*` or
 * `@fastify/otel` module, while a server with the variable set does (the control that
 * shows the module log sees them). Each child process records every module it resolves
 * through a resolution hook preloaded with `--import`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_BIN, ensureBuilt, startServe } from './helpers/child.js';

const REGISTER = fileURLToPath(new URL('./fixtures/module-log/register.mjs', import.meta.url));
const ADMIN = 'test-admin-token-0123456789abcdef';
const TELEMETRY = /\/node_modules\/(@opentelemetry|@fastify\/otel)\//;

describe('loading OpenTelemetry', () => {
  let dir: string;
  let receiver: Server;
  let receiverUrl: string;
  const exports: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'org-telemetry-loading-'));
    // An OTLP/HTTP receiver, so the traced server's exporter has somewhere to flush.
    receiver = createServer((request, response) => {
      exports.push(request.url ?? '');
      request.resume();
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address();
    receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  /** The environment that makes a child record the modules it resolves in `log`. */
  const recording = (log: string): Record<string, string> => ({
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${REGISTER}`.trim(),
    ORG_TEST_MODULE_LOG: log,
  });
  const modules = async (log: string) => (await readFile(log, 'utf8')).split('\n').filter(Boolean);

  it('org --version loads none of it', async () => {
    const log = join(dir, 'version.log');
    const env: NodeJS.ProcessEnv = { ...process.env, ...recording(log), OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl };
    const { stdout } = await promisify(execFile)(process.execPath, [ORG_BIN, '--version'], { env });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const loaded = await modules(log);
    // The control: the module log saw the CLI itself (its packages come inside the bundle).
    expect(loaded.some((url) => url.includes('/dist/bundle/main.js'))).toBe(true);
    expect(loaded.filter((url) => TELEMETRY.test(url))).toEqual([]);
  });

  it('org serve without an OTLP endpoint loads none of it', async () => {
    const log = join(dir, 'serve-off.log');
    const home = join(dir, 'home-off');
    const child = await startServe({ home, args: ['--no-demo'], env: { ...recording(log), ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg') } });
    try {
      await child.ready;
      const response = await fetch(`${child.url}/api/org/structures`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(response.status).toBe(200);
    } finally {
      expect(await child.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    const loaded = await modules(log);
    expect(loaded.some((url) => /\/dist\/bundle\/serve-[A-Z0-9]+\.js$/.test(url))).toBe(true);
    expect(loaded.filter((url) => TELEMETRY.test(url))).toEqual([]);
  });

  it('org serve with OTEL_EXPORTER_OTLP_ENDPOINT loads the SDK and exports its spans', async () => {
    const log = join(dir, 'serve-on.log');
    const home = join(dir, 'home-on');
    const child = await startServe({
      home,
      args: ['--no-demo'],
      env: { ...recording(log), ORG_ADMIN_TOKEN: ADMIN, ORG_CONFIG_DIR: join(home, 'cfg'), OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl },
    });
    try {
      const response = await fetch(`${child.url}/api/org/structures`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect(response.status).toBe(200);
    } finally {
      // Shutting down flushes the exporter before the process exits.
      expect(await child.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    }
    const loaded = await modules(log);
    expect(loaded.some((url) => url.includes('/node_modules/@opentelemetry/sdk-trace-node/'))).toBe(true);
    expect(loaded.some((url) => url.includes('/node_modules/@fastify/otel/'))).toBe(true);
    expect(exports).toContain('/v1/traces');
  });
});
