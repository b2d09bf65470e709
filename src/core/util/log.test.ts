import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionRegistry, KeyService, hashToken } from '../auth/index.js';
import { createSkillStore } from '../skills/store.js';
import { createLineLog, errorFields, guardLog, type LogLevel } from './log.js';

interface Record {
  level: LogLevel;
  message: string;
  fields?: { [name: string]: unknown };
}

/** A log that keeps records and resolves `next(message)` when one with that message arrives. */
function recorder() {
  const records: Record[] = [];
  const waiting = new Map<string, (record: Record) => void>();
  return {
    records,
    log(level: LogLevel, message: string, fields?: { [name: string]: unknown }) {
      const record = { level, message, ...(fields ? { fields } : {}) };
      records.push(record);
      waiting.get(message)?.(record);
    },
    next(message: string): Promise<Record> {
      return new Promise((resolve) => waiting.set(message, resolve));
    },
  };
}

describe('one log function', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'org-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('line log: keeps records at or above its threshold, one line each', () => {
    const lines: string[] = [];
    const log = createLineLog((line) => lines.push(line), 'warn');
    log('debug', 'no');
    log('info', 'no');
    log('warn', 'skill file skipped', { file: 'x.md' });
    log('error', 'boom', errorFields(Object.assign(new Error('disk full'), { code: 'ENOSPC' })));
    expect(lines).toEqual(['org: warn: skill file skipped {"file":"x.md"}\n', 'org: error: boom {"error":"disk full","code":"ENOSPC"}\n']);
  });

  it('a throwing log never throws into its caller', () => {
    const log = guardLog(() => {
      throw new Error('logger down');
    });
    expect(() => log('error', 'x')).not.toThrow();
  });

  it('the skill store reports a failed watcher batch at error level (it used to be dropped)', async () => {
    const rec = recorder();
    const root = join(dir, 'skills');
    const store = await createSkillStore({
      root,
      stateDir: join(dir, '.org'),
      watch: true,
      synonyms: false,
      log: rec.log,
      onFileRead: () => {
        throw new Error('read hook failed');
      },
    });
    try {
      const reported = rec.next('applying skill file changes failed');
      await writeFile(join(root, 'fresh.md'), '---\ntype: skill\nname: Fresh\nstatus: complete\n---\nBody\n');
      expect(await reported).toEqual({ level: 'error', message: 'applying skill file changes failed', fields: { files: 1, error: 'read hook failed' } });
    } finally {
      await store.close();
    }
    expect(rec.records.find((record) => record.message === 'skills loaded')?.level).toBe('info');
  });

  it('a failing flush of MCP key last-use times is reported, never an unhandled rejection', async () => {
    const rec = recorder();
    const file = join(dir, 'keys.json');
    const keys = new KeyService({ file, connections: new ConnectionRegistry(), flushEveryMs: 5, log: rec.log });
    await keys.load();
    const minted = await keys.mint({ structureId: 's', nodeId: 'n', roleId: 'team-a' });
    // The document can no longer be replaced: a folder stands where the file was.
    await rm(file);
    await mkdir(join(file, 'blocker'), { recursive: true });
    const reported = rec.next('saving MCP key last-use times failed');
    await keys.authenticate(hashToken(minted.token));
    const record = await reported;
    expect(record.level).toBe('error');
    expect(record.fields?.error).toEqual(expect.any(String));
    await rm(file, { recursive: true });
    await writeFile(file, '{"version":1,"keys":[]}');
    await keys.close().catch(() => undefined);
  });
});
