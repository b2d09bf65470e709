/**
 * Readiness over a listening server on each backend (issue 18, item 10): it is a 503
 * naming the skill index while the library is still loading, and 200 once the load has
 * ended; on PostgreSQL its store check asks the database, so a database that refuses
 * connections makes the instance not ready until it accepts them again.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createSkillStore, whileLoading } from '../src/core/skills/index.js';
import { testDatabase, type TestDatabase } from './support/database.js';
import { startInstance, type TestInstance } from './helpers/instance.js';

const json = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: (await response.json()) as Record<string, unknown> };
};

describe('readiness while the skill library loads', () => {
  let t: TestInstance | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it('is a 503 naming the skill index until the load ends, then 200', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    t = await startInstance({
      listen: true,
      waitForSkills: false,
      // The library's load starts only once the test releases it.
      deps: { openSkills: (options) => whileLoading(held.then(() => createSkillStore(options))) },
    });
    const loading = await json(`${t.url}/api/org/health/ready`);
    expect(loading.status).toBe(503);
    expect(loading.type).toMatch(/^application\/problem\+json/);
    expect(loading.body).toMatchObject({ code: 'unavailable', checks: { skills_index: false, store: true, draining: false } });
    expect(loading.body.detail).toContain('skill index is still loading');
    // Liveness answers meanwhile and says the index is loading.
    expect(await json(`${t.url}/api/org/health`)).toMatchObject({ status: 200, body: { status: 'ok', skills_index: 'loading' } });

    release();
    await t.app.skills.ready();
    expect(await json(`${t.url}/api/org/health/ready`)).toMatchObject({ status: 200, body: { status: 'ready', checks: { skills_index: true, store: true, draining: false } } });
    expect((await json(`${t.url}/api/org/health`)).body).toMatchObject({ skills_index: 'ready' });
  });
});

describe('readiness on a PostgreSQL store', () => {
  let database: TestDatabase;
  let t: TestInstance;
  let admin: pg.Client;
  let name: string;
  beforeAll(async () => {
    database = await testDatabase();
    name = new URL(database.url).pathname.slice(1);
    admin = new pg.Client({ connectionString: inject('postgresAdminUrl') });
    await admin.connect();
    t = await startInstance({ listen: true, config: { storeUrl: database.url } });
  });
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await t?.close();
    await admin?.end();
    await database?.drop();
  });

  it('is ready while the database answers, a 503 naming the store while it refuses connections, ready again after', async () => {
    expect(await json(`${t.url}/api/org/health/ready`)).toMatchObject({ status: 200, body: { checks: { skills_index: true, store: true, draining: false } } });

    // The database stops taking connections and the instance's open ones are ended.
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
    const refused = await json(`${t.url}/api/org/health/ready`);
    expect(refused.status).toBe(503);
    expect(refused.type).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'unavailable', checks: { skills_index: true, store: false, draining: false } });
    expect(refused.body.detail).toContain('store is not reachable');
    expect(JSON.stringify(refused.body)).not.toContain(database.url);
    // Liveness is not readiness: the process still answers.
    expect((await json(`${t.url}/api/org/health`)).status).toBe(200);

    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    expect(await json(`${t.url}/api/org/health/ready`)).toMatchObject({ status: 200, body: { checks: { store: true } } });
  });
});
