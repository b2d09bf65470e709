/**
 * The OpenAPI document (`GET /api/org/openapi.json`, API.md §8) as tools meet it: the
 * Redocly linter finds no error and no warning in the live document of a listening
 * server (composed as `org serve` composes it, /mcp included), and a client generated
 * with openapi-typescript type-checks calls that leave out every optional parameter,
 * while leaving out a required one fails. Conventions the linter does not check are
 * asserted here too: problem+json errors, the raw e-mail body, defaults never required,
 * no web UI routes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from './helpers/instance.js';

const run = promisify(execFile);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: { default?: unknown } }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: { properties?: Record<string, { default?: unknown }>; required?: string[] } }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface Document {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

/** Every operation of the document with its method and path. */
function operationsOf(document: Document): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method]! })),
  );
}

describe('the OpenAPI document', () => {
  let t: TestInstance;
  let work: string;
  let document: Document;
  let file: string;

  beforeAll(async () => {
    t = await startInstance({ listen: true });
    work = await mkdtemp(join(tmpdir(), 'org-openapi-'));
    const response = await fetch(`${t.url}/api/org/openapi.json`);
    expect(response.status).toBe(200);
    document = (await response.json()) as Document;
    file = join(work, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
  });
  afterAll(async () => {
    await t?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('passes the Redocly linter (recommended rules) with no error and no warning', async () => {
    const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');
    const outcome = await run(process.execPath, [cli, 'lint', file, '--format=json'], { cwd: work, maxBuffer: 16 * 1024 * 1024 }).catch(
      (error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
    );
    const report = JSON.parse(outcome.stdout.slice(outcome.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    const problems = report.problems.map((problem) => `${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('names every operation, documents its security and serves the API only', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThanOrEqual(40);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path } of operations) expect(path.startsWith('/api/org/') || path === '/mcp', path).toBe(true);
    expect(Object.keys(document.paths).some((path) => path.includes('{*}'))).toBe(false);
    expect(document.servers?.length).toBeGreaterThan(0);
    const security = (method: string, path: string) => document.paths[path]![method]!.security;
    expect(security('get', '/api/org/health')).toEqual([]);
    expect(security('get', '/api/org/openapi.json')).toEqual([]);
    expect(security('post', '/api/org/invites/accept')).toEqual([]);
    expect(security('post', '/api/org/inbound/email')).toEqual([]);
    expect(security('get', '/api/org/structures')).toEqual([{ bearer: [] }]);
    expect(security('post', '/mcp')).toEqual([{ bearer: [] }]);
  });

  it('documents every error answer as application/problem+json, the Problem record', () => {
    for (const { method, path, operation } of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = Object.keys(response.content ?? {});
        // /mcp: the MCP transport's own refusals are JSON-RPC errors; org's answers before it are problem details.
        if (path === '/mcp' && !media.includes('application/problem+json')) {
          expect(media, `${method} ${path} ${status}`).toEqual(['application/json']);
          continue;
        }
        expect(media.filter((type) => type !== 'application/json' || path !== '/mcp'), `${method} ${path} ${status}`).toEqual(['application/problem+json']);
        expect(response.content!['application/problem+json']).toEqual({ schema: { $ref: '#/components/schemas/Problem' } });
      }
      expect(operation.responses['429'], `${method} ${path}`).toBeDefined();
    }
  });

  it('never requires what has a default, and documents the raw e-mail body', () => {
    for (const { method, path, operation } of operationsOf(document)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema?.default !== undefined) expect(parameter.required, `${method} ${path} ${parameter.name}`).not.toBe(true);
      }
    }
    const limit = (method: string, path: string) => document.paths[path]![method]!.parameters!.find((p) => p.name === 'limit');
    expect(limit('get', '/api/org/chat/history')).toMatchObject({ required: false, schema: { default: 50 } });
    expect(limit('get', '/api/org/structures/{structure_id}/log')).toMatchObject({ required: false, schema: { default: 50 } });
    expect(document.components.schemas.SearchRequest).toMatchObject({ required: ['query'], properties: { limit: { type: 'integer' } } });
    const email = document.paths['/api/org/inbound/email']!.post!;
    expect(email.requestBody).toMatchObject({ required: true, content: { 'message/rfc822': { schema: { type: 'string' } } } });
  });

  it('generates a typed client with openapi-typescript that accepts calls without optional parameters', async () => {
    await writeFile(join(work, 'api.ts'), astToString(await openapiTS(document as never)));
    const calls = `
      import type { components, operations } from './api';
      type Query<Id extends keyof operations> = NonNullable<operations[Id]['parameters']['query']>;
      type Body<Id extends keyof operations> = operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
      type Answer<Id extends keyof operations, S extends keyof operations[Id]['responses'], M extends string = 'application/json'> =
        operations[Id]['responses'][S] extends { content: Record<M, infer B> } ? B : never;
      const id = '00000000-0000-4000-8000-000000000000';

      // Optional parameters (with server-side defaults) can be left out.
      export const history: Query<'getChatHistory'> = { structure_id: id, role_id: 'exec-ceo' };
      export const log: Query<'getWorkspaceLog'> = {};
      export const skills: Query<'listSkills'> = {};
      export const search: Body<'searchSkills'> = { query: 'late invoices' };
      export const sync: Body<'sendMessageSync'> = { structure_id: id, role_id: 'exec-ceo', message: 'hello' };
      export const node: Body<'addNode'> = { role_id: 'exec-ceo', label: 'CEO' };
      export const patch: Body<'updateNode'> = {};
      export const email: operations['receiveEmail']['requestBody']['content']['message/rfc822'] = 'From: a@example.com\\r\\n\\r\\nhello';

      // Required parameters stay required.
      // @ts-expect-error role_id is required
      export const noRole: Query<'getChatHistory'> = { structure_id: id };
      // @ts-expect-error query is required
      export const noQuery: Body<'searchSkills'> = {};

      // Answers are named records: events by type, nullable members, problem details.
      export const events: Answer<'sendMessageSync', 200>['events'] = [
        { type: 'thought', content: 'reading', timestamp: '2026-01-01T00:00:00.000Z' },
        { type: 'tool_call', content: { tool: 'search', args: null }, timestamp: '2026-01-01T00:00:00.000Z' },
        { type: 'complete', content: { summary: 'done', artifacts: [] }, timestamp: '2026-01-01T00:00:00.000Z' },
      ];
      // @ts-expect-error a complete event carries a summary
      export const badEvent: components['schemas']['ChatEvent'] = { type: 'complete', content: { artifacts: [] }, timestamp: '' };
      export const parent: components['schemas']['Node']['parent_id'] = null;
      export const state: components['schemas']['Node']['state'] = 'working';
      export const missing: Answer<'getSkill', 404, 'application/problem+json'> = { type: 'urn:org:problem:not_found', title: 'Not found', status: 404, detail: 'skill x not found', code: 'not_found' };
      // @ts-expect-error code is one of the documented codes
      export const badCode: components['schemas']['Problem']['code'] = 'teapot';
    `;
    const source = join(work, 'calls.ts');
    await writeFile(source, calls);
    const program = ts.createProgram([source], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      skipLibCheck: true,
      types: [],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(diagnostics).toEqual([]);
  });
});
