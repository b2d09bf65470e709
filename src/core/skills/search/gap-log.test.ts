import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSearchLog, gapKey, searchLogPath } from './gap-log.js';

let dir: string;
let now = new Date('2026-11-20T10:00:00.000Z');
const errors: unknown[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'org-gaps-'));
  errors.length = 0;
  now = new Date('2026-11-20T10:00:00.000Z');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const open = () => createSearchLog({ stateDir: dir, clock: () => now, onError: (error) => errors.push(error) });

describe('skill gap log', () => {
  it('groups messages that matched nothing or weakly by their content words, most frequent first', async () => {
    const log = open();
    const none = { structure_id: 's1', outcome: 'none' as const, chosen: null, top: [] };
    log.record({ ...none, message: 'Our website is down!' });
    log.record({ ...none, message: 'our website is down' });
    log.record({ ...none, message: 'website down?' });
    log.record({ structure_id: 's1', outcome: 'weak', chosen: 'triage', top: [{ slug: 'triage', score: 1.2 }], message: 'book a venue in Lisbon' });
    log.record({ structure_id: 's1', outcome: 'matched', chosen: 'pay', top: [{ slug: 'pay', score: 9 }], message: 'pay the supplier' });
    log.record({ ...none, structure_id: 's2', message: 'renew my passport' });
    now = new Date('2026-11-20T11:00:00.000Z');
    log.record({ ...none, message: 'website is down' });

    const gaps = await log.gaps({ structureId: 's1', since: new Date('2026-11-01T00:00:00.000Z') });
    expect(gaps.map((g) => [g.key, g.count, g.outcome])).toEqual([
      ['down websit', 4, 'none'],
      ['book lisbon venue', 1, 'weak'],
    ]);
    expect(gaps[0]).toMatchObject({ example: 'website is down', last_seen: '2026-11-20T11:00:00.000Z', first_seen: '2026-11-20T10:00:00.000Z' });
    expect(gaps[0]?.messages).toEqual(['website is down', 'website down?', 'our website is down']);
    expect(gaps[1]?.candidates).toEqual([{ slug: 'triage', score: 1.2 }]);
    expect((await log.gaps({ structureId: 's2' })).map((g) => g.example)).toEqual(['renew my passport']);
    expect(await log.gaps({ structureId: 's1', since: new Date('2026-11-21T00:00:00.000Z') })).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('skips a torn line and keeps appending after it', async () => {
    const log = open();
    log.record({ structure_id: null, outcome: 'none', chosen: null, top: [], message: 'first gap' });
    await log.flush();
    await appendFile(searchLogPath(dir), '{"at": "2026-11-20T10:00:00.000Z", "key": "tor');
    const again = open();
    again.record({ structure_id: null, outcome: 'none', chosen: null, top: [], message: 'second gap' });
    await again.flush();
    const lines = (await readFile(searchLogPath(dir), 'utf8')).split('\n');
    expect(lines.length).toBe(4);
    expect((await again.gaps()).map((g) => g.example).sort()).toEqual(['first gap', 'second gap']);
  });

  it('keys a message by its distinct content stems, ignoring order, case and filler', () => {
    expect(gapKey('Hi, the WEBSITE is down, down!')).toBe(gapKey('down website'));
    expect(gapKey('thanks!')).toBe('');
  });
});
